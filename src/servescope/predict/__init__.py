"""Predict without a GPU: catalog facts → step-time model → discrete-event
simulation of an inference engine → the same documents a measurement produces.

Modules, one concept each::

    architecture   parameter counts, FLOPs and KV bytes from config fields
    dtypes         bytes per element, compute dtypes
    hf_config      --model-config: any config.json → Model
    calibration    the named constants of the step model, defaults, sources
    step_time      time of one engine iteration (roofline terms + overheads)
    kv_capacity    KV blocks from device memory
    engine_flags   engine args as the simulator reads them (canonical names, what is read)
    coverage       what is not modelled: refused (NotModelledError) or warned, one line each
    deployment     a Scenario resolved into engine limits + models
    tokens         prompt lengths and prefix-cache block hashes
    replay         how a closed-loop point is run: the steady-state rule, known clients (--harness)
    workload_input workload plan / synthetic spec (closed, open, offline, staged) → simulated requests
    sim/           events, heap loop, replicas, scheduler and router policies
    outputs        records → aggregate() → Prediction and simulated Result
    api            predict(), prepare(), simulate()
    calibrate      fit factors to a measurement (least squares)
    search         rank engine/dtype/tp/dp/max_num_seqs under SLOs
    max_rate       the highest Poisson rate meeting p99 limits (bisection)
    probe          measure this machine → Hardware
    plausibility   physics checks of measurements → Issues
"""

from servescope.predict.api import (
    PredictionRun,
    Prepared,
    format_table,
    predict,
    prepare,
    resolve_deployment,
    run_simulation,
    simulate,
)
from servescope.predict.calibrate import CalibrationOutcome, calibrate
from servescope.predict.calibration import (
    Calibration,
    default_calibration,
    load_calibration,
)
from servescope.predict.coverage import NotModelledError
from servescope.predict.deployment import Deployment, deploy
from servescope.predict.hf_config import model_from_config, read_model_config
from servescope.predict.max_rate import MaxRateOutcome, NoRateError, max_rate, predict_max_rate
from servescope.predict.plausibility import plausibility_issues
from servescope.predict.probe import probe, to_hardware
from servescope.predict.replay import REPLAYS, Replay
from servescope.predict.search import SearchOutcome, format_search, parse_slos, search
from servescope.predict.step_time import StepTimeModel
from servescope.predict.workload_input import LoadOptions, SyntheticWorkload

__all__ = [
    "Calibration",
    "CalibrationOutcome",
    "Deployment",
    "LoadOptions",
    "MaxRateOutcome",
    "NoRateError",
    "NotModelledError",
    "PredictionRun",
    "Prepared",
    "REPLAYS",
    "Replay",
    "SearchOutcome",
    "StepTimeModel",
    "SyntheticWorkload",
    "calibrate",
    "default_calibration",
    "deploy",
    "format_search",
    "format_table",
    "load_calibration",
    "max_rate",
    "model_from_config",
    "parse_slos",
    "plausibility_issues",
    "predict",
    "predict_max_rate",
    "prepare",
    "probe",
    "read_model_config",
    "resolve_deployment",
    "run_simulation",
    "search",
    "simulate",
    "to_hardware",
]
