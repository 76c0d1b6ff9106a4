"""``trace-warehouse``: generate the sample, run the pipeline, query the warehouse."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from pipelines.export.formats import FORMATS as EXPORT_FORMATS
from pipelines.sample.params import SampleError
from pipelines.settings import (
    ENGINES,
    PROJECT_ROOT,
    SETTINGS_BY_VAR,
    SOURCES,
    Settings,
    SettingsError,
    child_environment,
    load_settings,
)


def _var(name: str) -> str:
    """The help of a flag that overrides a setting: its variable, and its default when it has one."""
    return SETTINGS_BY_VAR[name].cli_help


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="trace-warehouse",
        description="A warehouse for LLM-cluster traces (AcmeTrace, BurstGPT). Settings: see README.",
    )
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("sample", help="write the embedded SYNTHETIC sample mirror")
    s.add_argument("--out", type=Path, required=True, help="mirror folder to write")
    s.add_argument("--scale", type=float, default=None, help="fraction of the real row counts")
    s.add_argument("--util-nodes", type=int, default=None, help="nodes per cluster in utilization files")
    s.add_argument("--util-days", type=int, default=None, help="days of 15-s utilization samples")
    s.add_argument("--gpu-util-days", type=int, default=None, help="days of GPU_UTIL (default: --util-days)")
    s.add_argument("--seed", type=int, default=None)
    s.add_argument(
        "--util-files", action="append", default=None, metavar="CLUSTER/METRIC",
        help="write only these utilization files (repeatable; 'kalos/GPU_UTIL', 'kalos/all', 'all')",
    )  # fmt: skip
    s.add_argument(
        "--real-shape", action="store_true",
        help="utilization at the real shape (293 nodes x 8 GPUs, 14 days of 15-s samples: Kalos GPU_UTIL "
        "~0.95 GB); only the --util-files given (default: all, ~30 GB)",
    )  # fmt: skip

    r = sub.add_parser(
        "run",
        help="bring $WAREHOUSE_DIR up to date: rebuild what changed upstream (--all: everything)",
        description="Fetch and load what changed upstream (unchanged files are skipped), validate it, and rebuild "
        "only its lineage: dbt, the fits and the reports are skipped when no raw partition changed since the "
        "last build, and the run says what it skipped and why. A first run on an empty warehouse builds "
        "everything; --all rebuilds every selected asset.",
    )
    r.add_argument("--source", choices=SOURCES, help=f"where the files come from ({_var('TRACE_SOURCE')})")
    r.add_argument("--mirror", type=Path, help=f"mirror root ({_var('TRACE_MIRROR_DIR')})")
    r.add_argument("--engine", choices=ENGINES, help=f"dbt target ({_var('TRACE_ENGINE')})")
    r.add_argument(
        "--select",
        help='Dagster asset selection, e.g. \'key:"raw/burstgpt__requests"\' or \'tag:"source"="burstgpt"+\' '
        "(what changed in it; with --all, all of it)",
    )
    r.add_argument(
        "--all",
        dest="everything",
        action="store_true",
        help="rebuild every selected asset, changed or not (dbt, fits and reports included)",
    )
    r.add_argument(
        "--verbose",
        action="store_true",
        help="stream Dagster's and dbt's logs here instead of the progress display (default: logs/run-*.log)",
    )

    d = sub.add_parser("dev", help="start the Dagster UI on 127.0.0.1 (shared instance in $DAGSTER_HOME)")
    d.add_argument("--port", type=int, default=None, help=f"UI port ({_var('DAGSTER_PORT')})")

    sub.add_parser("status", help="what the warehouse holds: families, last run, upstream changes, docs")

    o = sub.add_parser(
        "docs", help="serve the Data Docs, dbt docs and report on 127.0.0.1 (for the UI's links)"
    )
    o.add_argument("--port", type=int, default=None, help=f"port ({_var('TRACE_DOCS_PORT')})")

    e = sub.add_parser(
        "export",
        help="write a replay export of a window of the marts (BurstGPT CSV, Mooncake JSONL, Vidur CSV, jobs)",
        description="Write a window of the warehouse in a trace-replay format to $WAREHOUSE_DIR/exports/ (or "
        "--out), with a <file>.meta.json sidecar: window, filters, row count, token sums, sha256, data origin.",
    )
    e.add_argument(
        "format", choices=list(EXPORT_FORMATS), help="burstgpt, mooncake, vidur, acme-jobs or helios"
    )
    e.add_argument(
        "--window",
        nargs=2,
        metavar=("START", "END"),
        help="half-open [START, END). Requests: trace seconds (3600), a duration from day 0 (36h), an ISO time "
        "(needs BURSTGPT_START_DATE) or 'start'; jobs: an ISO date/time (UTC) or 'start'. END may also be "
        "'+DURATION' (+1h) or 'end'. Default: everything selected",
    )
    e.add_argument("--model", help="requests of this model only (ChatGPT, GPT-4)")
    e.add_argument("--log-type", help="requests of this log type only ('Conversation log', 'API log')")
    e.add_argument(
        "--cluster", help="job formats: jobs of this cluster only (seren, kalos, …); helios needs one"
    )
    e.add_argument("--speed", type=float, default=1.0, help="arrival speed-up: 2 = arrivals twice as fast")
    e.add_argument(
        "--max-tokens",
        type=int,
        help="requests: limit request + response tokens (Vidur's max_tokens is 4096); see --over-max",
    )
    e.add_argument(
        "--over-max",
        choices=("drop", "clip"),
        default="drop",
        help="with --max-tokens: leave such requests out (drop, the default) or clip their tokens to it",
    )
    e.add_argument("--rebase", action="store_true", help="requests: arrival 0 is the first request written")
    e.add_argument("--block-size", type=int, default=512, help="mooncake: prompt tokens per hash id (512)")
    e.add_argument(
        "--session-ids", action="store_true", help="mooncake: write the BurstGPT Session ID as session_id"
    )
    e.add_argument("--session", help="requests of this BurstGPT session (Session ID) only")
    e.add_argument("--sessions-only", action="store_true", help="requests that belong to a session only")
    t = e.add_argument_group(
        "transforms (requests; reproducible with --seed; fidelity checks in the sidecar)"
    )
    t.add_argument("--rate-scale", type=float, help="re-draw arrivals at this many times the rate")
    t.add_argument("--burstiness", type=float, help="re-draw arrivals with this Gamma shape (1 = Poisson)")
    t.add_argument("--input-scale", type=float, default=1.0, help="multiply request tokens")
    t.add_argument("--output-scale", type=float, default=1.0, help="multiply response tokens")
    t.add_argument("--seed", type=int, default=0, help="seed of the re-drawn arrivals (0)")
    e.add_argument("--out", type=Path, help="file to write (default: $WAREHOUSE_DIR/exports/<format file>)")

    q = sub.add_parser("sql", help="query trace.duckdb read-only (interactive without QUERY)")
    q.add_argument("query", nargs="?", help="SQL to run; omit for an interactive prompt")
    return p


def _run_flags(args: argparse.Namespace) -> dict[str, str | None]:
    """The run's flags as the settings variables they override."""
    return {
        "TRACE_SOURCE": args.source,
        "TRACE_MIRROR_DIR": str(args.mirror.resolve()) if args.mirror else None,
        "TRACE_ENGINE": args.engine,
    }


def _sample(args: argparse.Namespace) -> int:
    from pipelines.sample import generate_sample
    from pipelines.sample.generator import REAL_SHAPE

    shape = dict(REAL_SHAPE) if args.real_shape else {}
    kwargs = shape | {
        k: v
        for k, v in {
            "scale": args.scale, "util_nodes": args.util_nodes, "util_days": args.util_days,
            "gpu_util_days": args.gpu_util_days, "seed": args.seed,
        }.items()
        if v is not None
    }  # fmt: skip
    only = args.util_files or (["all"] if args.real_shape else None)
    manifest = generate_sample(
        args.out.resolve(), progress=lambda m: print(m, file=sys.stderr), utilization_only=only, **kwargs
    )
    total = sum(e.bytes for e in manifest.files.values())
    print(f"wrote {len(manifest.files)} files ({total:,} bytes) to {args.out} — SYNTHETIC sample data")
    return 0


def _run(args: argparse.Namespace) -> int:
    from pipelines.run import run_pipeline

    return run_pipeline(
        load_settings(overrides=_run_flags(args)),
        args.select,
        verbose=args.verbose,
        everything=args.everything,
    )


def _sql(args: argparse.Namespace) -> int:
    from pipelines.warehouse.shell import interactive, run_query

    settings = load_settings()
    return run_query(settings, args.query) if args.query else interactive(settings)


def _export(args: argparse.Namespace) -> int:
    from pipelines.export.effects import warning_line
    from pipelines.export.transforms import TransformError, TransformSpec
    from pipelines.export.writer import ExportError, ExportRequest, export

    try:
        transform = TransformSpec(
            seed=args.seed, rate_scale=args.rate_scale, burstiness=args.burstiness,
            input_scale=args.input_scale, output_scale=args.output_scale,
        )  # fmt: skip
    except TransformError as exc:
        print(f"trace-warehouse export: {exc}", file=sys.stderr)
        return 1
    request = ExportRequest(
        format=args.format,
        window=tuple(args.window) if args.window else ("start", "end"),
        model=args.model,
        log_type=args.log_type,
        cluster=args.cluster,
        speed=args.speed,
        out=args.out,
        max_tokens=args.max_tokens,
        over_max=args.over_max,
        block_size=args.block_size,
        rebase=args.rebase,
        session_ids=args.session_ids,
        session=args.session,
        sessions_only=args.sessions_only,
        transform=transform,
    )
    try:
        result = export(load_settings(), request)
    except ExportError as exc:
        print(f"trace-warehouse export: {exc}", file=sys.stderr)
        return 1
    meta = result.meta
    window = meta["window"]
    origin = meta.get("synthetic_notice", "real data")
    print(
        f"wrote {result.rows:,} rows to {result.path} (window [{window['start']}, {window['end'] or 'open'}), "
        f"speed {meta['speed']:g}) — {origin}; described in {result.sidecar.name}"
    )
    for effect in meta["consumer_effects"]:
        print(warning_line(effect), file=sys.stderr)
    for check in meta.get("fidelity", []):
        verdict = "pass" if check["passed"] else "FAIL"
        print(
            f"fidelity {check['name']}: {verdict} ({check['value']:.4g} against {check['target']:.4g}, "
            f"tolerance {check['tolerance']:.3g})"
        )
    return 0 if all(c["passed"] for c in meta.get("fidelity", [])) else 1


def _status(args: argparse.Namespace) -> int:
    from pipelines.status import NoWarehouseError, family_statuses, render_status, upstream_changes

    settings = load_settings()
    try:
        families = family_statuses(settings)
    except NoWarehouseError as exc:
        print(f"trace-warehouse: {exc}", file=sys.stderr)
        return 1
    from pipelines.defs.run_history import last_run

    print(render_status(settings, families, last_run(settings), upstream_changes(settings)))
    return 0


def _docs(args: argparse.Namespace) -> int:
    from pipelines.docs_server import make_server

    settings = load_settings()
    try:
        server = make_server(settings, args.port)
    except OSError as exc:
        print(
            f"trace-warehouse docs: cannot listen on 127.0.0.1:{args.port or settings.docs_port}: {exc}",
            file=sys.stderr,
        )
        return 1
    host, port = server.server_address[:2]
    print(
        f"docs of {settings.warehouse_dir} on http://{host}:{port}/ (Ctrl-C stops)",
        file=sys.stderr,
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


def _start_docs_server(settings: Settings) -> None:
    """``trace-warehouse docs`` beside the UI, in the UI's process group (so it ends with the UI)."""
    import subprocess

    subprocess.Popen(
        [sys.executable, "-m", "pipelines.cli", "docs"],
        cwd=PROJECT_ROOT,
        env=child_environment(settings),
        stdin=subprocess.DEVNULL,
    )


def _dev(args: argparse.Namespace) -> int:
    from pipelines.defs.instance import ensure_dagster_home

    settings = load_settings()
    ensure_dagster_home(settings)
    port = str(args.port or settings.dagster_port)
    workspace = str(PROJECT_ROOT / "workspace.yaml")
    print(f"Dagster UI: http://127.0.0.1:{port} (instance {settings.dagster_home})", file=sys.stderr)
    print(f"docs (the UI's Data Docs and dbt docs links): {settings.docs_url}/", file=sys.stderr)
    _start_docs_server(settings)
    os.chdir(PROJECT_ROOT)
    cmd = [sys.executable, "-m", "dagster", "dev", "-h", "127.0.0.1", "-p", port, "-w", workspace]
    os.execve(sys.executable, cmd, child_environment(settings))
    return 0  # not reached


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        handler = {
            "sample": _sample, "run": _run, "dev": _dev, "sql": _sql, "status": _status, "docs": _docs,
            "export": _export,
        }[args.command]  # fmt: skip
        return handler(args)
    except (SettingsError, SampleError, FileNotFoundError) as exc:
        print(f"trace-warehouse: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
