package perfx.ignite;

import java.util.List;
import org.apache.ignite.Ignite;
import org.apache.ignite.Ignition;
import org.apache.ignite.cluster.ClusterState;
import org.apache.ignite.configuration.ClientConnectorConfiguration;
import org.apache.ignite.configuration.DataRegionConfiguration;
import org.apache.ignite.configuration.DataStorageConfiguration;
import org.apache.ignite.configuration.IgniteConfiguration;
import org.apache.ignite.spi.communication.tcp.TcpCommunicationSpi;
import org.apache.ignite.spi.discovery.tcp.TcpDiscoverySpi;
import org.apache.ignite.spi.discovery.tcp.ipfinder.vm.TcpDiscoveryVmIpFinder;

/**
 * One Apache Ignite server node on the loopback address, configured in code (ignite-core reads
 * no XML without ignite-spring), alone in its cluster: discovery and communication listen on the
 * ports given and look for no other node, so nodes started side by side on one machine never
 * join each other. Prints "perfx-ignite-ready PORT" once clients can connect, and stops when its
 * standard input closes (the process that started it stopped it, or died).
 *
 * <p>Arguments: CLIENT_PORT DISCOVERY_PORT COMMUNICATION_PORT WORK_DIR MAX_MB [persistent]. With
 * "persistent", the caches live in WORK_DIR too, so a node restarted on the same WORK_DIR keeps
 * what was written before it stopped.
 */
public final class TestNode {
    private static final long MB = 1024L * 1024L;

    private TestNode() {}

    public static void main(String[] args) throws Exception {
        int clientPort = Integer.parseInt(args[0]);
        int discoveryPort = Integer.parseInt(args[1]);
        int communicationPort = Integer.parseInt(args[2]);
        String workDir = args[3];
        long maxMb = Long.parseLong(args[4]);
        boolean persistent = args.length > 5 && args[5].equals("persistent");

        TcpDiscoveryVmIpFinder finder = new TcpDiscoveryVmIpFinder();
        finder.setAddresses(List.of("127.0.0.1:" + discoveryPort));
        TcpDiscoverySpi discovery = new TcpDiscoverySpi();
        discovery.setLocalAddress("127.0.0.1");
        discovery.setLocalPort(discoveryPort);
        discovery.setLocalPortRange(0);
        discovery.setIpFinder(finder);

        TcpCommunicationSpi communication = new TcpCommunicationSpi();
        communication.setLocalAddress("127.0.0.1");
        communication.setLocalPort(communicationPort);
        communication.setLocalPortRange(0);

        ClientConnectorConfiguration connector = new ClientConnectorConfiguration();
        connector.setHost("127.0.0.1");
        connector.setPort(clientPort);
        connector.setPortRange(0);

        DataRegionConfiguration region = new DataRegionConfiguration();
        region.setName("default");
        region.setInitialSize(Math.min(64, maxMb) * MB);
        region.setMaxSize(maxMb * MB);
        region.setPersistenceEnabled(persistent);
        DataStorageConfiguration storage = new DataStorageConfiguration();
        storage.setDefaultDataRegionConfiguration(region);

        IgniteConfiguration config = new IgniteConfiguration();
        config.setIgniteInstanceName("perfx-test-node-" + clientPort);
        config.setConsistentId("perfx-test-node");
        config.setLocalHost("127.0.0.1");
        config.setWorkDirectory(workDir);
        config.setPeerClassLoadingEnabled(false);
        config.setMetricsLogFrequency(0);
        config.setDiscoverySpi(discovery);
        config.setCommunicationSpi(communication);
        config.setClientConnectorConfiguration(connector);
        config.setDataStorageConfiguration(storage);

        Ignite ignite = Ignition.start(config);
        if (persistent) {
            ignite.cluster().state(ClusterState.ACTIVE);
        }
        System.out.println("perfx-ignite-ready " + clientPort);
        System.out.flush();
        while (System.in.read() != -1) {
            // wait for end of input
        }
        Ignition.stop(ignite.name(), true);
        System.exit(0);
    }
}
