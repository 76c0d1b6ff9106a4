"""The warehouse the dbt tests build and how they run dbt: the real rows shipped in the repository plus a
few synthetic rows (:func:`load_fixture_rows`), ``dbt`` as a subprocess on it (:func:`run_dbt`), and
read-only queries on the result (:class:`Warehouse`)."""

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import duckdb

from pipelines.families.registry import FAMILIES, fixed_files
from pipelines.families.upstream import UpstreamFile, discover_utilization
from pipelines.lake.loader import SourceFile, load_file
from pipelines.settings import PROJECT_ROOT, Settings
from pipelines.warehouse.db import writer
from pipelines.warehouse.views import refresh_views
from tests.conftest import REAL_DIR

DBT_PROJECT_DIR = PROJECT_ROOT / "dbt_project"
DBT = str(Path(sys.executable).with_name("dbt"))
BURST_3 = "github/HPMLL/BurstGPT/releases/download/v2.0/BurstGPT_3.csv"

SEREN_SYNTHETIC = """\
6000001,u1,1,8,128,Pretrain,COMPLETED,2023-07-01 10:00:00+08:00,2023-07-01 10:00:05+08:00,2023-07-01 11:00:05+08:00,3600,5,28800.0
6000002,u2,1,0,16,Debug,TIMEOUT,2023-07-01 10:05:00+08:00,2023-07-01 10:05:00+08:00,2023-07-01 10:06:00+08:00,60,0,0.0
6000001,u9,1,8,128,Eval,FAILED,2023-07-01 12:00:00+08:00,2023-07-01 12:00:01+08:00,2023-07-01 12:00:11+08:00,10,1,80.0
6000003,u1,2,16,256,Eval,NODE_FAIL,2023-07-02 09:00:00+08:00,2023-07-02 09:00:02+08:00,2023-07-02 09:10:02+08:00,600,2,9600.0
6000004,u3,1,8,128,SFT,COMPLETED,2023-07-02 09:00:00+08:00,2023-07-02 08:00:00+08:00,2023-07-02 09:10:00+08:00,4200,-3600,33600.0
"""  # line 4 repeats job 6000001 (dropped in int_); line 6 starts before submit (quarantined below)
KALOS_SYNTHETIC = (
    "dlcrunning000001,uf795,1,8,120,1000,100.0,Eval,RUNNING,2023-05-18 00:00:00+00:00,"
    "2023-05-18 00:00:10+00:00,,,,,10.0,\n"
)
BURST_3_TEXT = """\
Timestamp,Session ID,Elapsed time,Model,Request tokens,Response tokens,Total tokens,Log Type
19440110.0,3f2b6a9e-1c4d-4e1a-9a51-1b2c3d4e5f60,12.5,GPT-4,100,20,120,Conversation log
19440111.0,,0,ChatGPT,50,0,50,API log
19443710.0,,3.25,ChatGPT,-7,8,1,API log
"""  # line 4 has negative tokens (quarantined below)
GPU_UTIL = """\
Time,10.140.0.1-0,10.140.0.1-1,10.140.0.2-7
2023-07-19 08:00:00+08:00,99.0,0,50
2023-07-19 08:00:15+08:00,98.0,,51
2023-07-19 08:00:15+08:00,97.0,,52
"""  # the repeated Time row is dropped in int_ (first _row_number kept)
KALOS_SM_ACTIVE = "Time,lingjun-pod9-0016-0,lingjun-pod9-0016-3\n2023-07-19 08:00:00+08:00,40.5,12\n"
NODE_MEMORY = """\
Time,10.140.0.131,10.140.0.131.1
2023-07-19 11:35:00+08:00,,40.0
2023-07-19 11:35:15+08:00,41.0,
"""
KALOS_NODE_CPU = "Time,lingjun-pod9-0016\n2023-07-19 08:00:00+08:00,238.9\n"
IPMI_AB = """\
Time,Sys_Total_Power,IP,CPU_Power,Memory_Power
2023-07-19 08:00:00+08:00,3000.5,10.140.0.1,400.0,100.0
2023-07-19 08:00:00+08:00,2800.0,10.140.0.2,380.0,
"""
IPMI_D = (
    "Time,Sys_Total_Power,IP,CPU_Power,Memory_Power\n2023-07-19 08:00:00+08:00,450.0,10.140.1.10,200.0,50.0\n"
)
PHILLY = """\
jobid,user,vc,gpu_num,state,submit_time,start_time,end_time,duration,queue
application_1,u1,vc1,4,Pass,2017-10-03 10:00:00,2017-10-03 10:01:00,2017-10-03 11:01:00,3600,60
application_2,u2,vc1,1,Killed,2017-10-03 10:00:00,2017-10-03 10:00:30,2017-10-03 10:10:30,600,30
"""
PAI = """\
job_name,user,plan_cpu,plan_gpu,wait_time,status,submit_time,start_time,end_time,duration
j1,u1,600,50,9,Failed,0,9,609,600
j2,u2,100,800,0,Terminated,3600,3600,7200,3600
"""  # PAI times: seconds since the trace start
HELIOS = """\
jobid,user,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue
h1,u1,8,48,1,TIMEOUT,2020-04-01 00:00:00,2020-04-01 00:00:00,2020-04-01 01:00:00,3600,0
"""


def upstream(name: str) -> UpstreamFile:
    return next(f for f in fixed_files() if f.file_name == name)


def metric_file(cluster: str, metric: str) -> UpstreamFile:
    return discover_utilization([f"data/utilization/{cluster}/{metric}.csv"]).files[0]


def load(settings: Settings, up: UpstreamFile, path: Path, origin: str, real_lines=()) -> None:
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    load_file(settings, SourceFile(up, path, sha, origin, real_lines))


def write_quarantine(settings: Settings, family: str, key: str, rows: list[tuple]) -> None:
    """A quarantine partition as validation writes it: (_source_file, _row_number[, series], rule)."""
    folder = settings.quarantine_dir / family / f"_partition={key}"
    folder.mkdir(parents=True, exist_ok=True)
    names = (
        "_source_file, _row_number, series, rule" if len(rows[0]) == 4 else "_source_file, _row_number, rule"
    )
    values = ", ".join("(" + ", ".join(repr(v) for v in row) + ", 'written by the test')" for row in rows)
    duckdb.execute(
        f"copy (select * from (values {values}) as q({names}, details)) "
        f"to '{folder / 'quarantine.parquet'}' (format parquet)"
    )


def load_fixture_rows(settings: Settings, files: Path) -> None:
    """Real rows (BurstGPT first 400, README rows, cluster_summary) plus the synthetic rows above."""
    files.mkdir(parents=True, exist_ok=True)

    def text(name: str, content: str) -> Path:
        (files / name).write_text(content, encoding="utf-8")
        return files / name

    load(settings, upstream("BurstGPT_1.csv"), REAL_DIR / "burstgpt_1_first400.csv", "real")
    load(settings, upstream("cluster_summary.csv"), REAL_DIR / "acmetrace_cluster_summary.csv", "real")
    seren = (REAL_DIR / "acmetrace_seren_readme_rows.csv").read_text() + SEREN_SYNTHETIC
    load(settings, upstream("trace_seren.csv"), text("trace_seren.csv", seren), "mixed", [[2, 3]])
    kalos = (REAL_DIR / "acmetrace_kalos_readme_rows.csv").read_text() + KALOS_SYNTHETIC
    load(settings, upstream("trace_kalos.csv"), text("trace_kalos.csv", kalos), "mixed", [[2, 3]])
    load(settings, upstream("BurstGPT_3.csv"), text("BurstGPT_3.csv", BURST_3_TEXT), "synthetic")
    for cluster, metric, content in [
        ("seren", "GPU_UTIL", GPU_UTIL),
        ("kalos", "SM_ACTIVE", KALOS_SM_ACTIVE),
        ("seren", "NODE_MEMORY_UTILIZATION", NODE_MEMORY),
        ("kalos", "NODE_CPU_UTILIZATION", KALOS_NODE_CPU),
    ]:
        load(settings, metric_file(cluster, metric), text(f"{cluster}-{metric}.csv", content), "synthetic")
    load(settings, upstream("GPU_AB_Power.csv"), text("GPU_AB_Power.csv", IPMI_AB), "synthetic")
    load(settings, upstream("CPU_D_Power.csv"), text("CPU_D_Power.csv", IPMI_D), "synthetic")
    load(settings, upstream("philly_trace.csv"), text("philly_trace.csv", PHILLY), "synthetic")
    load(settings, upstream("pai_trace.csv"), text("pai_trace.csv", PAI), "synthetic")
    load(settings, upstream("helios_trace.csv"), text("helios_trace.csv", HELIOS), "synthetic")
    write_quarantine(settings, "burstgpt__requests", "0225", [(BURST_3, 4, "negative_tokens")])
    seren_path = upstream("trace_seren.csv").mirror_path
    write_quarantine(settings, "acme__seren_jobs", "2023-07", [(seren_path, 8, "start_before_submit")])
    gpu_util = metric_file("seren", "GPU_UTIL").mirror_path  # one cell of line 2, not the whole line
    write_quarantine(settings, "acme__gpu_metrics", "2023-07-19", [(gpu_util, 2, "10.140.0.2-7", "range")])
    with writer(settings) as con:
        refresh_views(con, settings, [f.key for f in FAMILIES])


def run_dbt(
    settings: Settings, *args: str, target: Path, start_date: str = "", **extra_env: str
) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "WAREHOUSE_DIR": str(settings.warehouse_dir),
        "BURSTGPT_START_DATE": start_date,
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        **extra_env,
    }
    cmd = [
        DBT,
        *args,
        "--profiles-dir",
        str(DBT_PROJECT_DIR),
        "--target-path",
        str(target),
        "--log-path",
        str(target),
    ]
    return subprocess.run(cmd, cwd=DBT_PROJECT_DIR, env=env, capture_output=True, text=True, timeout=300)


class Warehouse:
    """Read-only queries, each on its own connection (dbt needs the file's write lock in between)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def execute(self, sql: str) -> list[tuple]:
        con = duckdb.connect(str(self.path), read_only=True)
        try:
            return con.execute(sql).fetchall()
        finally:
            con.close()
