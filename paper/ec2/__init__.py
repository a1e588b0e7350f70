"""A seeded simulator of the PerfXplain paper's EC2 experiment (Table 2's grid of Pig jobs on
1 to 16 instances): Hadoop-style jobs, tasks and Ganglia host metrics whose causes are known.
``generate`` runs the grid; ``work``, ``cluster`` and ``ganglia`` are its mechanics."""
