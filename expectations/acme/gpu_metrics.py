"""Suite of ``acme__gpu_metrics``: the DCGM metric files, unpivoted to one row per GPU and sample.

Physical ranges are those of the A100 GPUs of both clusters, with headroom: board power ≤ 700 W (A100 SXM
TDP 400 W), temperatures 0-120 °C (the GPU shuts down far below), clocks ≤ 2,100 MHz (A100 SM boost 1,410,
HBM2e 1,593). ``FB_USED + FB_FREE`` is the 80 GiB frame buffer (81,920 MiB) at every sample of every GPU;
a difference above ``FB_TOLERANCE_MIB`` (driver reservations) is flagged.
"""

from __future__ import annotations

from expectations.acme.utilization import (
    COLUMNS,
    ROW_KEY,
    on_line,
    percentage_rule,
    physical_range_rule,
    repeated_lines,
    series_rules,
)
from expectations.rules import Frame, FrameSources, Rule, Suite, between

FB_TOTAL_MIB = 81_920
FB_TOLERANCE_MIB = 1_024
PERCENT_METRICS = (
    "GPU_UTIL",
    "MEM_COPY_UTIL",
    "DRAM_ACTIVE",
    "PIPE_TENSOR_ACTIVE",
    "SM_ACTIVE",
    "SM_OCCUPANCY",
)


def first_copies(rows: str, lines: str | None, metric: str, columns: str) -> str:
    """``columns`` of ``metric``'s rows, the first copy (by file, then line) of each cluster × series × Time:
    the window runs only on the lines whose (cluster, Time) repeats (found among ``lines``, the rows' lines
    as the load counted them, when there are), the rest are first copies as they are."""
    of_metric = f"(select * from {rows} where metric = '{metric}') as cell"
    metric_lines = f"(select * from {lines or rows} where metric = '{metric}')"
    later = (
        f"select _source_file, _row_number, series from {of_metric} "
        f"semi join ({repeated_lines(metric_lines, ('cluster',))}) as repeated on {on_line('cell', 'repeated')} "
        "qualify row_number() over (partition by cluster, series, time order by _source_file, _row_number) > 1"
    )
    return (
        f"select {columns} from {of_metric} anti join ({later}) as later "
        f"on {on_line('cell', 'later')} and cell.series = later.series"
    )


def _fb_used_files(src: FrameSources) -> str:
    """The partition's FB_USED source files in order: a pair carries its file's position in this list."""
    return (
        f"(select list(distinct _source_file order by _source_file) from {src.rows} where metric = 'FB_USED')"
    )


def fb_pair_sql(src: FrameSources) -> str:
    """FB_USED beside FB_FREE for the same cluster, GPU and sample (first copy of repeated samples), the
    FB_USED sample's file as its position in :func:`_fb_used_files` (named by :func:`fb_pair_named`).

    The join is on two integers: the GPU's number among the partition's FB series (from the series the load
    counted, a few thousand rows) and the time as epoch microseconds (the same match as on the timestamps).
    DuckDB hashes and compares a join key for every sample on both sides, and the series names and cluster,
    strings, made that join a half slower; numbering the series probes a table that fits in the cache. The
    frame is screened (``Frame.screened``): of its 27 M pairs a day at the real width, only those outside
    the tolerance are kept, and a pair carries its file as a number, named only on the rows a query reads."""
    counted = src.series or src.rows
    gpus = (
        "select cluster, series, cast(row_number() over (order by cluster, series) as integer) as gpu "
        f"from (select distinct cluster, series from {counted} where metric in ('FB_USED', 'FB_FREE'))"
    )
    used = first_copies(
        src.rows,
        src.lines,
        "FB_USED",
        f"list_position({_fb_used_files(src)}, _source_file) as file, _row_number, cluster, series, time, value",
    )
    free = first_copies(src.rows, src.lines, "FB_FREE", "cluster, series, time, value")

    def numbered(rows: str, columns: str) -> str:
        return (
            f"select {columns}, gpus.gpu from ({rows}) as r "
            f"join ({gpus}) as gpus on r.cluster = gpus.cluster and r.series = gpus.series"
        )

    return (
        "select u.file, u._row_number, u.series, u.time, u.value as fb_used_mib, f.value as fb_free_mib "
        f"from ({numbered(used, 'r.file, r._row_number, r.series, r.time, r.value')}) as u "
        f"join ({numbered(free, 'r.time, r.value')}) as f on u.gpu = f.gpu and epoch_us(u.time) = epoch_us(f.time)"
    )


def fb_pair_named(src: FrameSources, pairs: str) -> str:
    """The pairs of :func:`fb_pair_sql` (relation ``pairs``) with their FB_USED sample's file named."""
    return (
        f"select {_fb_used_files(src)}[file] as _source_file, _row_number, series, time, fb_used_mib, "
        f"fb_free_mib from {pairs}"
    )


FB_PAIR = Frame(
    "fb_pair",
    "partition",
    fb_pair_sql,
    index=ROW_KEY,
    description="FB_USED and FB_FREE of one GPU at one sample, side by side (one partition at a time)",
    named=fb_pair_named,
    screened=True,
)

SUITE = Suite(
    family="acme__gpu_metrics",
    columns=COLUMNS,
    row_index=ROW_KEY,
    rules=(
        *series_rules(),
        percentage_rule(PERCENT_METRICS),
        physical_range_rule("power_within_physical_range", "power", ("POWER_USAGE",), 0, 700, "W"),
        physical_range_rule(
            "temperature_within_physical_range", "temperature", ("GPU_TEMP", "MEMORY_TEMP"), 0, 120, "C"
        ),
        physical_range_rule(
            "clock_within_physical_range", "clock", ("SM_CLOCK", "MEM_CLOCK"), 0, 2100, "MHz"
        ),
        Rule(
            "fb_used_plus_free_is_80gib",
            "flag",
            f"FB_USED + FB_FREE is the A100's {FB_TOTAL_MIB:,} MiB frame buffer (± {FB_TOLERANCE_MIB:,} MiB) "
            "for a GPU at a sample.",
            between("fb_total_delta_mib", max_value=FB_TOLERANCE_MIB),
            frame="fb_pair",
            derived={"fb_total_delta_mib": f"abs(fb_used_mib + fb_free_mib - {FB_TOTAL_MIB})"},
            columns=("series", "time", "fb_used_mib", "fb_free_mib"),
        ),
    ),
    frames=(FB_PAIR,),
)
