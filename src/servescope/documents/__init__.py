"""Pydantic models of every servescope document kind, and their loading rules."""

from servescope.documents.base import Document, Issue
from servescope.documents.config_id import canonical_config, config_id
from servescope.documents.dataset import Dataset, DatasetRow
from servescope.documents.evaluation_run import EvaluationPoint, EvaluationRun
from servescope.documents.hardware import Hardware
from servescope.documents.loader import DOCUMENT_KINDS, Loaded, load, load_document, parse_document, read_data
from servescope.documents.model import Model
from servescope.documents.prediction import Calibration, Prediction, PredictionPoint
from servescope.documents.result import Distribution, Failure, Metadata, Metrics, Result, ResultPoint
from servescope.documents.scenario import EngineSpec, Scenario
from servescope.documents.workload import WORKLOAD_KINDS, Workload, WorkloadParams

__all__ = [
    "Calibration",
    "DOCUMENT_KINDS",
    "Dataset",
    "DatasetRow",
    "Distribution",
    "Document",
    "EngineSpec",
    "EvaluationPoint",
    "EvaluationRun",
    "Failure",
    "Hardware",
    "Issue",
    "Loaded",
    "Metadata",
    "Metrics",
    "Model",
    "Prediction",
    "PredictionPoint",
    "Result",
    "ResultPoint",
    "Scenario",
    "WORKLOAD_KINDS",
    "Workload",
    "WorkloadParams",
    "canonical_config",
    "config_id",
    "load",
    "load_document",
    "parse_document",
    "read_data",
]
