"""Host metrics that describe none of the log's hosts are an error naming both sides' hosts,
not features without a single value; metrics of some of them join as before. A public YARN
log (tests/data/public) whose tasks ran on worker121.datacenter and worker194.datacenter."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from perfx.cli import main
from perfx.logs.errors import LogError
from perfx.logs.loader import load_log
from tests.data_files import public_log

LOG = public_log("groupon__sparklint/spark_event_log_example")


def metrics_csv(tmp_path: Path, hosts: list[str]) -> Path:
    tasks = load_log(LOG).tasks
    start, end = tasks["launch_time"].min(), tasks["finish_time"].max()
    frame = pd.DataFrame(
        [
            {"host": h, "timestamp": t, "load_one": 1.0 + i}
            for i, h in enumerate(hosts)
            for t in (start, end)
        ]
    )
    path = tmp_path / "ganglia.csv"
    frame.to_csv(path, index=False)
    return path


def test_metrics_of_other_hosts_name_both_sides(tmp_path) -> None:
    path = metrics_csv(tmp_path, [f"10.0.0.{n}" for n in range(1, 13)])  # the hosts by IP
    with pytest.raises(LogError) as raised:
        load_log(LOG, host_metrics=path)
    assert str(raised.value) == (
        "host metrics match none of the log's hosts: the metrics have 10.0.0.1, 10.0.0.10, 10.0.0.11 and 9 more, "
        "the log worker121.datacenter, worker194.datacenter"
    )


def test_cli_says_so_in_one_line(tmp_path, capsys) -> None:
    path = metrics_csv(tmp_path, ["worker121", "worker194"])  # without the domain
    with pytest.raises(SystemExit) as exit_info:
        main(["logs", str(LOG), "--host-metrics", str(path)])
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert err == (
        "perfx: host metrics match none of the log's hosts: the metrics have worker121, worker194, "
        "the log worker121.datacenter, worker194.datacenter\n"
    )


def test_metrics_of_some_hosts_join(tmp_path) -> None:
    log = load_log(LOG, host_metrics=metrics_csv(tmp_path, ["worker121.datacenter", "elsewhere"]))
    on_host = log.tasks["host"] == "worker121.datacenter"
    assert (log.tasks.loc[on_host, "host_load_one"] == 1.0).all()
    assert log.tasks.loc[~on_host, "host_load_one"].isna().all() and (~on_host).any()
