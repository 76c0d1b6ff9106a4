"""Target numbers the synthetic sample is shaped to, in one place so that calibration can tune them.

Published numbers come from ``DATASETS.md`` (tags [V] verified upstream, [S] second-hand) and are named
``PUBLISHED_*`` or say so in a comment; everything else is a tuning knob or an assumption, and says so.
Shares are fractions (0.497, not 49.7 %).
"""

from __future__ import annotations

# --- sizes ----------------------------------------------------------------------------------------
DEFAULT_SCALE = 0.002  # the whole default mirror generates in a few seconds
MIN_SYNTHETIC_ROWS = 40  # every file keeps at least this many synthetic rows, so every quirk is present
CHUNK_ROWS = 250_000  # rows generated and written per chunk (bounds memory at scale 1.0)
UTIL_CHUNK_CELLS = 2_000_000  # wide utilization cells generated per chunk

# --- AcmeTrace job traces -------------------------------------------------------------------------
PUBLISHED_SEREN_ROWS = 818_327  # [S]
PUBLISHED_KALOS_ROWS = 62_413  # [S]
PUBLISHED_SEREN_GPU_JOBS = 450_590  # [S]
PUBLISHED_KALOS_GPU_JOBS = 19_907  # [S]
SEREN_GPU_JOB_SHARE = PUBLISHED_SEREN_GPU_JOBS / PUBLISHED_SEREN_ROWS
KALOS_GPU_JOB_SHARE = PUBLISHED_KALOS_GPU_JOBS / PUBLISHED_KALOS_ROWS

# GPU jobs by count and by GPU time [V summary]; TIMEOUT / NODE_FAIL are carved out of FAILED (assumed).
SEREN_GPU_STATE_SHARE = {"COMPLETED": 0.497, "CANCELLED": 0.075, "FAILED": 0.425, "TIMEOUT": 0.003,
                         "NODE_FAIL": 0.001}  # fmt: skip
PUBLISHED_SEREN_GPU_STATE_TIME_SHARE = {"COMPLETED": 0.212, "CANCELLED": 0.664, "FAILED": 0.124}
SEREN_CPU_STATE_SHARE = {"COMPLETED": 0.858, "CANCELLED": 0.039, "FAILED": 0.101, "TIMEOUT": 0.001,
                         "NODE_FAIL": 0.001}  # fmt: skip
KALOS_GPU_STATE_SHARE = {"COMPLETED": 0.541, "CANCELLED": 0.062, "FAILED": 0.397}
PUBLISHED_KALOS_GPU_STATE_TIME_SHARE = {"COMPLETED": 0.313, "CANCELLED": 0.607, "FAILED": 0.080}
KALOS_CPU_STATE_SHARE = {"COMPLETED": 0.860, "CANCELLED": 0.001, "FAILED": 0.139}
KALOS_RUNNING_ROWS = 3  # [S] undocumented state RUNNING, exactly 3 Kalos rows at every scale
# Every GPU state and type appears at least once per chunk of jobs (so TIMEOUT and NODE_FAIL are present).

# GPU-job count share by type [V figure] (Seren Pretrain/MLLM/Debug split of the last 5.6 % assumed;
# Kalos: Eval 92.8 % [V], the rest assumed, with "a few SFT").
SEREN_GPU_TYPE_SHARE = {"Eval": 0.649, "SFT": 0.149, "Other": 0.146, "Pretrain": 0.022, "MLLM": 0.018,
                        "Debug": 0.016}  # fmt: skip
KALOS_GPU_TYPE_SHARE = {"Eval": 0.928, "Pretrain": 0.028, "Other": 0.026, "Debug": 0.015, "SFT": 0.003}
SEREN_CPU_TYPE_SHARE = {"Other": 0.70, "Debug": 0.18, "Eval": 0.12}  # assumed
KALOS_CPU_TYPE_SHARE = {"Other": 0.80, "Debug": 0.10, "Eval": 0.10}  # assumed
# Published GPU-time share of Pretrain (a check target, not an input): Seren 69.5 %, Kalos ≈ 95.5 %.
PUBLISHED_SEREN_PRETRAIN_GPU_TIME_SHARE = 0.695
PUBLISHED_KALOS_PRETRAIN_GPU_TIME_SHARE = 0.955

# GPUs per job by type: (choices, weights). Many 1-GPU jobs, rare 1024 (max_gpu 1024 on both [V]).
GpuShape = tuple[tuple[int, ...], tuple[float, ...]]
SEREN_GPU_NUM: dict[str, GpuShape] = {
    "Eval": ((1, 2, 4, 8), (0.74, 0.10, 0.08, 0.08)),
    "SFT": ((1, 8, 16, 32, 64), (0.30, 0.40, 0.20, 0.07, 0.03)),
    "Other": ((1, 2, 4, 8, 16), (0.62, 0.12, 0.10, 0.13, 0.03)),
    "Pretrain": ((8, 16, 32, 64, 128, 256, 512, 1024), (0.2, 0.15, 0.2, 0.2, 0.12, 0.08, 0.04, 0.01)),
    "MLLM": ((8, 16, 32, 64), (0.4, 0.3, 0.2, 0.1)),
    "Debug": ((1, 2, 4, 8), (0.5, 0.2, 0.15, 0.15)),
}
KALOS_GPU_NUM: dict[str, GpuShape] = {
    "Eval": ((1, 8, 16, 32, 64), (0.62, 0.20, 0.08, 0.06, 0.04)),
    "SFT": ((8, 16, 32, 64), (0.3, 0.3, 0.2, 0.2)),
    "Other": ((1, 8, 64, 128), (0.5, 0.3, 0.15, 0.05)),
    "Pretrain": ((128, 256, 512, 1024), (0.10, 0.25, 0.35, 0.30)),
    "Debug": ((1, 8, 16, 64), (0.5, 0.3, 0.1, 0.1)),
}
MAX_GPU_NUM = 1024  # [V] both clusters: one job of this size is forced into every file
SEREN_CPUS_PER_GPU = 16  # README row: 8 GPUs, 128 CPUs
KALOS_CPUS_PER_GPU = 15  # README row: 64 GPUs, 960 CPUs
GPUS_PER_NODE = 8
CPU_JOB_CPUS: GpuShape = ((1, 2, 4, 8, 16, 32, 64), (0.25, 0.2, 0.2, 0.15, 0.1, 0.07, 0.03))

# Run time (end − start, seconds): lognormal per type, times a factor per GPU-job state. A state that
# holds more GPU time than jobs runs longer: the naive factor is (time share / count share) relative to
# COMPLETED (Seren: CANCELLED 20.8, FAILED 0.68; Kalos: 16.9, 0.35); the values below (and the Pretrain
# medians) were tuned at scale 1.0, seed 0, so that the GPU-time shares by state and the Pretrain share land
# within 1 pp of the published ones despite the run-time cap (Kalos CANCELLED saturates at the cap, hence
# COMPLETED < 1). `make bench` checks them on the built marts. GPU time is carried by a few hundred huge,
# long jobs: at small scales the shares are noise.
SEREN_STATE_RUN_FACTOR = {"COMPLETED": 1.0, "CANCELLED": 42.0, "FAILED": 0.69}
KALOS_STATE_RUN_FACTOR = {"COMPLETED": 0.84, "CANCELLED": 100.0, "FAILED": 0.2}
# [V] medians of GPU jobs: run 122 s (Seren), 124 s (Kalos, of its `duration` column).
PUBLISHED_SEREN_MEDIAN_RUN_S = 122
PUBLISHED_KALOS_MEDIAN_RUN_S = 124
SEREN_RUN_MEDIAN_S = {"Eval": 92.0, "SFT": 300.0, "Other": 105.0, "Pretrain": 1700.0, "MLLM": 600.0,
                      "Debug": 200.0}  # fmt: skip
KALOS_RUN_MEDIAN_S = {"Eval": 80.0, "SFT": 400.0, "Other": 120.0, "Pretrain": 2700.0, "Debug": 150.0}
RUN_SIGMA = 1.9
CPU_RUN_MEDIAN_S = {"seren": 14.0, "kalos": 5.0}  # [V] med_run_time_cpu 14 / 22 (Kalos: + queue)
CPU_RUN_SIGMA = 2.0
SEREN_MAX_RUN_S = 1_209_604  # [V] max_run_time_gpu
KALOS_MAX_RUN_S = 625_740  # [V]

# Queue (start − submit, seconds): share at 0 s, share at 1 s, lognormal tail (median, sigma).
PUBLISHED_SEREN_MEDIAN_QUEUE_S = 1  # [V] GPU jobs
PUBLISHED_KALOS_MEDIAN_QUEUE_S = 17  # [V] GPU jobs
SEREN_GPU_QUEUE = (0.42, 0.12, 40.0, 2.4)
SEREN_CPU_QUEUE = (0.45, 0.15, 5.0, 1.5)
KALOS_GPU_QUEUE = (0.0, 0.0, 17.0, 2.2)
KALOS_CPU_QUEUE = (0.05, 0.05, 11.0, 1.6)

# Submit windows (assumed within the published "March–August 2023"): Seren starts right after its
# README rows, Kalos right after its README rows (2023-05-17) — files stay sorted by submit time.
SEREN_SUBMIT_WINDOW = ("2023-03-01 00:30:00+08:00", "2023-08-31 23:59:59+08:00")
KALOS_SUBMIT_WINDOW = ("2023-05-17 11:30:00+00:00", "2023-08-31 15:59:59+00:00")
SEREN_USERS = 420  # assumed pool sizes; users follow a Zipf-like law
KALOS_USERS = 110
USER_ZIPF_EXPONENT = 1.1
WEEKEND_FACTOR = 0.7  # job submissions on Saturday/Sunday (+08:00) relative to weekdays (assumed)

# Hour-of-day rhythm (local +08:00 hour 0..23), relative weights; used for jobs and requests.
HOUR_OF_DAY_WEIGHTS = (
    0.55, 0.45, 0.35, 0.28, 0.24, 0.22, 0.25, 0.35, 0.60, 0.90, 1.10, 1.15,
    1.00, 0.95, 1.10, 1.15, 1.12, 1.05, 0.95, 0.90, 0.95, 1.00, 0.90, 0.70,
)  # fmt: skip

# --- previous-work traces (row counts [V] summary; shapes assumed) --------------------------------
PUBLISHED_HELIOS_ROWS = 3_362_981
PUBLISHED_HELIOS_GPU_JOBS = 1_580_464
PUBLISHED_PHILLY_ROWS = 112_956
PUBLISHED_PAI_ROWS = 1_260_920
PUBLISHED_PAI_GPU_JOBS = 1_037_085
HELIOS_GPU_STATE_SHARE = {"COMPLETED": 0.624, "CANCELLED": 0.221, "FAILED": 0.150, "TIMEOUT": 0.003,
                          "NODE_FAIL": 0.002}  # fmt: skip
HELIOS_CPU_STATE_SHARE = {"COMPLETED": 0.909, "CANCELLED": 0.030, "FAILED": 0.061}
PHILLY_STATE_SHARE = {"Pass": 0.604, "Killed": 0.090, "Failed": 0.306}
PAI_STATUS_SHARE = {"Terminated": 0.86, "Failed": 0.13, "Running": 0.01}  # assumed
HELIOS_GPU_NUM: GpuShape = ((1, 2, 4, 8, 16, 32, 64, 128, 256, 2048),
                            (0.62, 0.1, 0.1, 0.1, 0.04, 0.02, 0.01, 0.005, 0.0049, 0.0001))  # fmt: skip
PHILLY_GPU_NUM: GpuShape = ((1, 2, 4, 8, 16, 32, 64, 128), (0.7, 0.1, 0.1, 0.06, 0.02, 0.01, 0.007, 0.003))
PAI_PLAN_GPU: GpuShape = (
    (5, 10, 25, 50, 100, 200, 400, 800),
    (0.05, 0.08, 0.15, 0.35, 0.27, 0.05, 0.03, 0.02),
)  # fmt: skip  ×100 of GPUs
HELIOS_RUN = (206.0, 2.3)  # (median s [V], sigma)
HELIOS_QUEUE = (0.55, 0.1, 60.0, 2.5)
PHILLY_RUN = (874.0, 2.2)
PHILLY_QUEUE = (0.05, 0.02, 189.0, 2.0)
PAI_RUN = (480.667, 1.8)
PAI_QUEUE = (0.1, 0.05, 9.0, 2.0)
HELIOS_WINDOW = ("2020-04-01 00:00:00", "2020-09-27 23:59:59")  # naive local times (assumed window)
PHILLY_WINDOW = ("2017-10-03 00:00:00", "2017-12-15 23:59:59")
PAI_WINDOW_S = (0, 5_961_600)  # PAI times: seconds from the trace start (assumed 69 days)

# --- BurstGPT -------------------------------------------------------------------------------------
PUBLISHED_REQUEST_ROWS = {1: 1_429_737, 2: 3_858_400, 3: 5_344_021}
PUBLISHED_WITHOUT_FAILS_ROWS = {1: 1_404_294, 2: 3_784_213, 3: 4_956_058}
PUBLISHED_FAILED_ROWS = {k: PUBLISHED_REQUEST_ROWS[k] - PUBLISHED_WITHOUT_FAILS_ROWS[k] for k in (1, 2, 3)}
PUBLISHED_GPT4_ROWS = {1: 215_127, 2: 87_349, 3: 754_536}  # in without_fails
PUBLISHED_CONVERSATION_ROWS = {1: 145_707, 2: 79_445, 3: 231_761}  # in without_fails
PUBLISHED_DUPLICATE_ROWS = {1: 40_910, 2: 88_687, 3: 150_523}  # exact duplicates in without_fails
GPT4_SHARE = {k: PUBLISHED_GPT4_ROWS[k] / PUBLISHED_WITHOUT_FAILS_ROWS[k] for k in (1, 2, 3)}
CONVERSATION_SHARE = {k: PUBLISHED_CONVERSATION_ROWS[k] / PUBLISHED_WITHOUT_FAILS_ROWS[k] for k in (1, 2, 3)}
DUPLICATE_SHARE = {k: PUBLISHED_DUPLICATE_ROWS[k] / PUBLISHED_WITHOUT_FAILS_ROWS[k] for k in (1, 2, 3)}
SAME_SECOND_SHARE = 0.03  # extra rows sharing the previous row's second (not duplicates); tuning knob
MIN_FAILED_ROWS = 5  # synthetic failures kept per file at any scale
MIN_DUPLICATE_ROWS = 5
# Clock (seconds since 00:00 of day 0, +08:00): file 1 continues after its real rows and stops before
# file 2's first second; file 2 spans 5,270,414 → 10,454,395 [S]; file 3 starts at 19,440,110 [S] and
# ends after 5,344,021 / 1,877 req/h ≈ 2,847 h (end assumed from the published mean rate).
REQUEST_CLOCK = {1: (37_274, 5_270_413), 2: (5_270_414, 10_454_395), 3: (19_440_110, 29_689_310)}
PUBLISHED_REQUESTS_PER_HOUR = {1: 959, 2: 2_628, 3: 1_877}
FILE1_RAMP_DAYS = 10.0  # file 1 starts slowly (≈0.03 req/s) and ramps up over its first days
FILE1_RAMP_FLOOR = 0.05
MAX_REQUEST_TOKENS = {1: 29_665, 2: 31_407, 3: 125_591}  # [S]
MAX_RESPONSE_TOKENS = {1: 7_315, 2: 12_472, 3: 5_383}  # [S]
REQUEST_TOKENS = {"ChatGPT": (600.0, 1.1), "GPT-4": (900.0, 1.1)}  # (median, sigma), assumed
RESPONSE_TOKENS = {"ChatGPT": (230.0, 0.9), "GPT-4": (260.0, 0.9)}
SECONDS_PER_RESPONSE_TOKEN = {"ChatGPT": (0.005, 0.03), "GPT-4": (0.02, 0.08)}  # uniform range
CONVERSATION_SESSION_MEAN_REQUESTS = 3.0  # conversation rows per Session ID (assumed)

# --- utilization ------------------------------------------------------------------------------------
UTIL_WINDOW_START = "2023-07-19 00:00:00+08:00"
SAMPLE_SECONDS = 15
SECONDS_PER_DAY = 86_400
# Seren NODE_MEMORY_UTILIZATION column-name quirk [V]: [start, end) in +08:00.
NODE_MEMORY_QUIRK_WINDOW = ("2023-07-19 11:35:00+08:00", "2023-07-19 14:01:00+08:00")
FB_TOTAL_MIB = 81_920  # FB_USED + FB_FREE per A100-80GB
GPU_IDLE_SHARE = {"seren": 0.31, "kalos": 0.20}  # [V] ≈31 % of Seren GPU_UTIL samples are 0
GPU_BUSY_MEAN_S = 2 * 3600.0
# Busy GPU_UTIL: (low, high, weight) uniform integers plus point masses; medians 99 / 98 [V].
GPU_UTIL_BUSY = {
    "seren": ((1, 98, 0.22), {99: 0.43, 100: 0.35}),
    "kalos": ((1, 97, 0.30), {98: 0.20, 99: 0.25, 100: 0.25}),
}
NODE_CPU_MEDIAN = {"seren": 8.0, "kalos": 20.1}  # [V] median node CPU utilization, %
NODE_CPU_SIGMA = 0.7
KALOS_NODE_CPU_MAX = 238.9  # [V]
KALOS_NODE_CPU_OVER_100_CELLS = 12  # cells above 100 % per Kalos file (one of them is the max)
XID_CODES = (13, 31, 43, 48, 63, 74, 79)
XID_CELL_SHARE = 2e-5
IB_BYTES_PER_S = (2.0e9, 1.0)  # busy node IB rate: (median, sigma); idle ~1e3–1e5 B/s
DUPLICATE_TIME_ROWS = 3  # per utilization file
# IPMI power (W): Sys_Total_Power of GPU servers idle .. busy; components.
IPMI_GPU_SERVER_W = (1_200.0, 4_600.0)
IPMI_CPU_SERVER_W = (300.0, 700.0)
IPMI_CPU_POWER_W = (180.0, 420.0)
IPMI_MEMORY_POWER_W = (30.0, 90.0)
