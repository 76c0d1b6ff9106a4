"""Value models of the utilization metrics: what a cell holds given whether its GPU (or node) is busy.

DCGM metrics get a ``(rows, gpus)`` busy mask; Prometheus metrics a ``(rows, nodes)`` busy fraction.
NaN means an empty cell. Units: % (0–100), W, MiB, °C, MHz, bytes per second.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pipelines.sample import calibration as cal

Values = Callable[[np.random.Generator, np.ndarray, str], np.ndarray]

A100_MEM_CLOCK_MHZ = 1593.0
SM_CLOCK_MHZ = (210.0, 1410.0)  # idle, busy boost


@dataclass(frozen=True)
class MetricModel:
    places: int  # decimals printed
    per_gpu: bool  # DCGM (one column per GPU) or Prometheus (one per node)
    values: Values
    stream: str | None = None  # draw from another metric's stream (FB_FREE mirrors FB_USED)


def _where_busy(busy: np.ndarray, on: np.ndarray, off: np.ndarray | float) -> np.ndarray:
    return np.where(busy, on, off)


def gpu_util(rng: np.random.Generator, busy: np.ndarray, cluster: str) -> np.ndarray:
    """Idle GPUs read 0; busy ones mostly 99–100 with a spread below (bimodal, median 99 / 98)."""
    (low, high, w_uniform), points = cal.GPU_UTIL_BUSY[cluster]
    values = np.array([0.0, *points], dtype=float)
    p = np.array([w_uniform, *points.values()], dtype=float)
    pick = rng.choice(len(values), size=busy.shape, p=p / p.sum())
    spread = rng.integers(low, high + 1, busy.shape).astype(float)
    return _where_busy(busy, np.where(pick == 0, spread, values[pick]), 0.0)


def _active(lo: float, hi: float, idle: float = np.nan) -> Values:
    """Uniform % while busy; ``idle`` (an empty cell by default: idle GPUs report no profiling value)."""

    def values(rng: np.random.Generator, busy: np.ndarray, cluster: str) -> np.ndarray:
        return _where_busy(busy, rng.uniform(lo, hi, busy.shape), idle)

    return values


def _temperature(busy_mean: float, idle_mean: float) -> Values:
    def values(rng: np.random.Generator, busy: np.ndarray, cluster: str) -> np.ndarray:
        on = np.clip(rng.normal(busy_mean, 6.0, busy.shape), 35, 90)
        return np.rint(_where_busy(busy, on, np.clip(rng.normal(idle_mean, 2.0, busy.shape), 22, 50)))

    return values


def mem_clock(rng: np.random.Generator, busy: np.ndarray, cluster: str) -> np.ndarray:
    return np.full(busy.shape, A100_MEM_CLOCK_MHZ)


def sm_clock(rng: np.random.Generator, busy: np.ndarray, cluster: str) -> np.ndarray:
    throttled = 1275.0 + 15.0 * rng.integers(0, 9, busy.shape)
    on = np.where(rng.random(busy.shape) < 0.9, SM_CLOCK_MHZ[1], throttled)
    return _where_busy(busy, on, SM_CLOCK_MHZ[0])


def power_usage(rng: np.random.Generator, busy: np.ndarray, cluster: str) -> np.ndarray:
    return _where_busy(busy, rng.uniform(180.0, 400.0, busy.shape), rng.uniform(58.0, 75.0, busy.shape))


def fb_used(rng: np.random.Generator, busy: np.ndarray, cluster: str) -> np.ndarray:
    on = rng.integers(10_000, cal.FB_TOTAL_MIB - 1_000, busy.shape)
    return _where_busy(busy, on, rng.integers(0, 5, busy.shape)).astype(float)


def fb_free(rng: np.random.Generator, busy: np.ndarray, cluster: str) -> np.ndarray:
    """Drawn from FB_USED's stream, so FB_USED + FB_FREE = 81,920 MiB at every sample of every GPU."""
    return cal.FB_TOTAL_MIB - fb_used(rng, busy, cluster)


def xid_errors(rng: np.random.Generator, busy: np.ndarray, cluster: str) -> np.ndarray:
    codes = np.asarray(cal.XID_CODES, dtype=float)[rng.integers(0, len(cal.XID_CODES), busy.shape)]
    return np.where(rng.random(busy.shape) < cal.XID_CELL_SHARE, codes, 0.0)


def node_cpu(rng: np.random.Generator, node_busy: np.ndarray, cluster: str) -> np.ndarray:
    """Lognormal around the published median, higher on busier nodes; capped at 100 (Kalos' cells above
    100 % are placed by the layout)."""
    mean_busy = 1 - cal.GPU_IDLE_SHARE[cluster]
    factor = (0.5 + node_busy) / (0.5 + mean_busy)
    median = cal.NODE_CPU_MEDIAN[cluster] * factor
    return np.clip(median * np.exp(cal.NODE_CPU_SIGMA * rng.standard_normal(node_busy.shape)), 0.05, 100.0)


def node_memory(rng: np.random.Generator, node_busy: np.ndarray, cluster: str) -> np.ndarray:
    return rng.uniform(8.0, 40.0, node_busy.shape) + 25.0 * node_busy


def node_ib(rng: np.random.Generator, node_busy: np.ndarray, cluster: str) -> np.ndarray:
    median, sigma = cal.IB_BYTES_PER_S
    busy = node_busy * median * np.exp(sigma * rng.standard_normal(node_busy.shape))
    return np.minimum(busy, 2.5e10) + rng.uniform(1e3, 1e5, node_busy.shape)


METRIC_MODELS: dict[str, MetricModel] = {
    "XID_ERRORS": MetricModel(0, True, xid_errors),
    "GPU_TEMP": MetricModel(0, True, _temperature(62.0, 34.0)),
    "MEMORY_TEMP": MetricModel(0, True, _temperature(70.0, 40.0)),
    "MEM_CLOCK": MetricModel(0, True, mem_clock),
    "MEM_COPY_UTIL": MetricModel(3, True, _active(5.0, 60.0, idle=0.0)),
    "FB_FREE": MetricModel(0, True, fb_free, stream="FB_USED"),
    "FB_USED": MetricModel(0, True, fb_used),
    "DRAM_ACTIVE": MetricModel(3, True, _active(10.0, 70.0)),
    "POWER_USAGE": MetricModel(1, True, power_usage),
    "GPU_UTIL": MetricModel(3, True, gpu_util),
    "PIPE_TENSOR_ACTIVE": MetricModel(3, True, _active(0.0, 55.0)),
    "SM_ACTIVE": MetricModel(3, True, _active(30.0, 95.0)),
    "SM_OCCUPANCY": MetricModel(3, True, _active(10.0, 60.0)),
    "SM_CLOCK": MetricModel(0, True, sm_clock),
    "NODE_CPU_UTILIZATION": MetricModel(3, False, node_cpu),
    "NODE_MEMORY_UTILIZATION": MetricModel(3, False, node_memory),
    "NODE_IB_SEND": MetricModel(3, False, node_ib),
    "NODE_IB_RECEIVE": MetricModel(3, False, node_ib),
}


def metric_model(metric: str) -> MetricModel:
    try:
        return METRIC_MODELS[metric]
    except KeyError:
        raise KeyError(f"the sample has no value model for metric {metric!r}") from None
