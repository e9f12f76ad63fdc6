"""The loader: every bad file becomes one clear issue, never a traceback."""

from __future__ import annotations

import errno
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from servescope.documents import DOCUMENT_KINDS, EvaluationRun, Loaded, Prediction, Workload, load, load_document
from servescope.errors import DocumentError, ServescopeError
from tests.documents.conftest import SEED_EVALUATION_RUN_YAML, WriteFn, triples

MIB = 1024 * 1024


def only_issue(loaded: Loaded) -> str:
    """Assert there is exactly one issue, an error about the whole file; return its message."""
    assert loaded.document is None
    assert not loaded.ok
    assert triples(loaded.issues) == [("error", "")], loaded.issues
    message = loaded.issues[0].message
    assert "\n" not in message  # one line
    assert "Traceback" not in message
    return message


# --- files that are not text documents ---------------------------------------------------------


@pytest.mark.parametrize("name", ["doc.yaml", "doc.json", "doc"])
def test_empty_file(write: WriteFn, name: str) -> None:
    assert "is empty" in only_issue(load(write(name, "")))


@pytest.mark.parametrize("text", [" ", "\n", "  \n\t\n  ", "\r\n\r\n"])
@pytest.mark.parametrize("name", ["doc.yaml", "doc.json"])
def test_whitespace_only_file(write: WriteFn, name: str, text: str) -> None:
    assert "is empty" in only_issue(load(write(name, text)))


def test_missing_file(tmp_path: Path) -> None:
    assert only_issue(load(tmp_path / "nope.yaml")) == "no such file"


def test_missing_file_given_as_str(tmp_path: Path) -> None:
    loaded = load(str(tmp_path / "nope.json"))
    assert loaded.source == str(tmp_path / "nope.json")
    assert only_issue(loaded) == "no such file"


def test_directory(tmp_path: Path) -> None:
    (tmp_path / "runs.yaml").mkdir()
    assert "is a folder" in only_issue(load(tmp_path / "runs.yaml"))


@pytest.mark.parametrize("content", [b"\x00", b"kind: EvaluationRun\x00\n", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", bytes(range(256))])
def test_binary_file(write: WriteFn, content: bytes) -> None:
    assert "binary file" in only_issue(load(write("doc.yaml", content)))


def test_non_utf8_bytes_name_the_offending_byte(write: WriteFn) -> None:
    # "kind: caf" is 9 bytes, so the Latin-1 e-acute sits at byte 9.
    message = only_issue(load(write("doc.yaml", "kind: caf\xe9\n".encode("latin-1"))))
    assert message == "is not UTF-8 text (byte 9); save it as UTF-8 YAML or JSON"


def test_utf8_bom_is_accepted(write: WriteFn) -> None:
    loaded = load(write("run.yaml", b"\xef\xbb\xbf" + SEED_EVALUATION_RUN_YAML.encode()))
    assert loaded.issues == []
    assert isinstance(loaded.document, EvaluationRun)


def test_file_over_20_mib_is_refused_without_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    chunk = (b"# padding padding padding padding padding padding padding padding\n" + b" " * 958) * 1024  # 1 MiB
    assert len(chunk) == MIB
    with path.open("wb") as f:
        for _ in range(50):
            f.write(chunk)
    assert path.stat().st_size == 50 * MIB
    start = time.perf_counter()
    message = only_issue(load(path))
    elapsed = time.perf_counter() - start
    # 50 MiB = 52,428,800 bytes = 52.4 MB.
    assert message == "is 52.4 MB; documents are limited to 20 MiB"
    assert elapsed < 2.0


def test_size_limit_boundary(write: WriteFn) -> None:
    at_limit = load(write("at.yaml", b" " * (20 * MIB)))
    assert "is empty" in only_issue(at_limit)  # read, found blank
    over = load(write("over.yaml", b" " * (20 * MIB + 1)))
    assert "limited to 20 MiB" in only_issue(over)


# --- text that is not valid YAML / JSON --------------------------------------------------------


def test_invalid_json_names_line_and_column(write: WriteFn) -> None:
    # Line 2 is ' "name": }' and the stray '}' is its 10th character.
    message = only_issue(load(write("doc.json", '{"kind": "EvaluationRun",\n "name": }')))
    assert message == "invalid JSON at line 2, column 10: Expecting value"


def test_trailing_comma_in_json(write: WriteFn) -> None:
    message = only_issue(load(write("doc.json", '{"kind": "EvaluationRun",}')))
    assert message.startswith("invalid JSON at line 1, column 26:")


def test_json_suffix_is_case_insensitive(write: WriteFn) -> None:
    message = only_issue(load(write("doc.JSON", '{"kind": "EvaluationRun",}')))
    assert message.startswith("invalid JSON at line 1")


def test_invalid_yaml_names_line_and_column(write: WriteFn) -> None:
    # "  b: c" on line 2: the ':' is the 4th character.
    message = only_issue(load(write("doc.yaml", "kind: a\n  b: c\n")))
    # libyaml says "... not allowed in this context", PyYAML's Python parser "... not allowed here"
    assert message.startswith("invalid YAML at line 2, column 4: mapping values are not allowed ")


def test_unclosed_yaml_flow_sequence(write: WriteFn) -> None:
    message = only_issue(load(write("doc.yaml", "kind: EvaluationRun\nname: [unclosed\n")))
    assert message.startswith("invalid YAML at line 3, column 1:")


def test_yaml_python_tags_are_refused(write: WriteFn) -> None:
    message = only_issue(load(write("doc.yaml", "kind: !!python/object/apply:os.system ['true']\n")))
    assert message.startswith("invalid YAML at line 1")


def test_duplicate_key_in_json(write: WriteFn) -> None:
    text = '{"kind": "EvaluationRun", "name": "a", "name": "b"}'
    assert only_issue(load(write("doc.json", text))) == "duplicate key 'name'"


def test_duplicate_key_nested_in_json(write: WriteFn) -> None:
    text = '{"kind": "EvaluationRun", "points": [{"concurrency": 1, "concurrency": 2}]}'
    assert only_issue(load(write("doc.json", text))) == "duplicate key 'concurrency'"


def test_duplicate_key_in_yaml_names_the_line(write: WriteFn) -> None:
    text = "kind: EvaluationRun\nname: a\nname: b\n"
    assert only_issue(load(write("doc.yaml", text))) == "duplicate key 'name' at line 3"


def test_duplicate_key_nested_in_yaml(write: WriteFn) -> None:
    text = SEED_EVALUATION_RUN_YAML.replace("    ttft_ms: 212.4\n", "    ttft_ms: 212.4\n    ttft_ms: 213.0\n")
    # The repeated key is the 21st line of the file (the 20th is the first ttft_ms of points[1]).
    assert only_issue(load(write("doc.yaml", text))) == "duplicate key 'ttft_ms' at line 21"


def test_multiple_yaml_documents(write: WriteFn) -> None:
    text = SEED_EVALUATION_RUN_YAML + "---\n" + SEED_EVALUATION_RUN_YAML
    assert only_issue(load(write("doc.yaml", text))) == "holds 2 YAML documents; put one document per file"


def test_three_yaml_documents(write: WriteFn) -> None:
    assert "holds 3 YAML documents" in only_issue(load(write("doc.yaml", "a: 1\n---\nb: 2\n---\nc: 3\n")))


def test_leading_document_marker_is_one_document(write: WriteFn) -> None:
    loaded = load(write("doc.yaml", "---\n" + SEED_EVALUATION_RUN_YAML))
    assert loaded.issues == []


def test_deeply_nested_json_does_not_crash(write: WriteFn) -> None:
    depth = 100_000
    message = only_issue(load(write("deep.json", "[" * depth + "]" * depth)))
    assert message.startswith("is nested too deeply to be a document")


def test_deeply_nested_json_objects_do_not_crash(write: WriteFn) -> None:
    depth = 100_000
    message = only_issue(load(write("deep.json", '{"a":' * depth + "1" + "}" * depth)))
    assert message.startswith("is nested too deeply to be a document")


@pytest.mark.parametrize(
    "text",
    ["- " * 5_000 + "1\n", "{a: " * 5_000 + "1" + "}" * 5_000],
    ids=["block-sequences", "flow-mappings"],
)
def test_deeply_nested_yaml_does_not_crash(write: WriteFn, text: str) -> None:
    # (Deep YAML flow *sequences* are avoided here only because PyYAML scans them in quadratic time.)
    assert only_issue(load(write("deep.yaml", text))).startswith("is nested too deeply to be a document")


def test_moderately_nested_value_is_an_ordinary_type_error(write: WriteFn) -> None:
    text = '{"kind": "EvaluationRun", "name": ' + "[" * 50 + "]" * 50 + "}"  # under limits.MAX_DOCUMENT_DEPTH
    loaded = load(write("doc.json", text))
    assert ("error", "name") in triples(loaded.issues)
    assert all("\n" not in i.message and len(i.message) < 300 for i in loaded.issues)


# --- data that is not a document ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "type_name"),
    [
        ("doc.yaml", "- a\n- b\n", "list"),
        ("doc.json", '[{"kind": "EvaluationRun"}]', "list"),
        ("doc.yaml", "hello\n", "str"),
        ("doc.json", "42", "int"),
        ("doc.json", "3.5", "float"),
        ("doc.json", "true", "bool"),
    ],
)
def test_top_level_that_is_not_a_mapping(write: WriteFn, name: str, text: str, type_name: str) -> None:
    loaded = load(write(name, text))
    assert triples(loaded.issues) == [("error", "")]
    assert loaded.issues[0].message == f"top level is a {type_name}; expected a mapping with a kind: field"


def test_unknown_kind_is_an_error_at_kind(write: WriteFn) -> None:
    loaded = load(write("doc.yaml", "kind: EvaluationRunn\nname: x\n"))
    assert triples(loaded.issues) == [("error", "kind")]
    message = loaded.issues[0].message
    assert message.startswith("unknown kind 'EvaluationRunn'; expected one of ")
    for kind in ("EvaluationRun", "Prediction", "Result", "serving", "sweep"):
        assert kind in message


@pytest.mark.parametrize("text", ["kind: 3\n", "kind: [EvaluationRun]\n", "kind: true\n"])
def test_kind_that_is_not_a_string_is_an_error_at_kind(write: WriteFn, text: str) -> None:
    loaded = load(write("doc.yaml", text))
    assert triples(loaded.issues) == [("error", "kind")]
    assert loaded.issues[0].message.startswith("unknown kind")


@pytest.mark.parametrize("text", ["name: x\n", "kind: null\n", "kind:\n"])
def test_missing_kind_is_an_error_at_kind(write: WriteFn, text: str) -> None:
    loaded = load(write("doc.yaml", text))
    assert triples(loaded.issues) == [("error", "kind")]
    assert loaded.issues[0].message.startswith("missing; expected one of ")


def test_every_kind_is_dispatched() -> None:
    assert DOCUMENT_KINDS["EvaluationRun"] is EvaluationRun
    assert DOCUMENT_KINDS["Prediction"] is Prediction
    for kind in ("serving", "sweep", "prefill", "longctx", "eval", "image"):
        assert DOCUMENT_KINDS[kind] is Workload


# --- YAML scalars that must stay strings -------------------------------------------------------


def test_unquoted_yaml_date_stays_a_string_and_validates(write: WriteFn) -> None:
    text = SEED_EVALUATION_RUN_YAML.replace('date: "2026-09-20"', "date: 2026-09-20")
    assert 'date: "2026-09-20"' not in text
    loaded = load(write("run.yaml", text))
    assert loaded.issues == []
    assert loaded.data is not None
    assert loaded.data["date"] == "2026-09-20"
    assert type(loaded.data["date"]) is str
    assert isinstance(loaded.document, EvaluationRun)
    assert loaded.document.date == "2026-09-20"


def test_unquoted_yaml_timestamp_stays_a_string(write: WriteFn) -> None:
    loaded = load(write("doc.yaml", "kind: Nope\nwhen: 2026-09-20 10:00:00\n"))
    assert loaded.data == {"kind": "Nope", "when": "2026-09-20 10:00:00"}


def test_unquoted_version_like_string_stays_a_string(write: WriteFn) -> None:
    text = SEED_EVALUATION_RUN_YAML.replace('engine_version: "0.29.0"', "engine_version: 0.29.0")
    loaded = load(write("run.yaml", text))
    assert loaded.issues == []
    assert loaded.data is not None and loaded.data["engine_version"] == "0.29.0"


# --- load_document -----------------------------------------------------------------------------


def test_load_document_returns_the_typed_document(write: WriteFn) -> None:
    doc = load_document(write("run.yaml", SEED_EVALUATION_RUN_YAML), EvaluationRun)
    assert isinstance(doc, EvaluationRun)
    assert doc.scenario == "llama-3.1-8b-on-h100"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("run.yaml", "", "is empty; expected a YAML or JSON document with a kind: field"),
        ("run.json", '{"kind": ', "invalid JSON at line 1, column 10: Expecting value"),
        ("run.yaml", "kind: Foo\n", "unknown kind 'Foo'"),
    ],
)
def test_load_document_raises_document_error_on_a_bad_file(write: WriteFn, name: str, content: str, message: str) -> None:
    path = write(name, content)
    with pytest.raises(DocumentError) as info:
        load_document(path, EvaluationRun)
    err = info.value
    assert isinstance(err, ServescopeError)
    assert err.source == str(path)
    assert err.message.startswith(message)
    assert str(err).startswith(f"{path}: ")


def test_load_document_error_names_the_path_and_counts_the_rest(write: WriteFn) -> None:
    text = SEED_EVALUATION_RUN_YAML.replace("concurrency: 8", "concurrency: 0").replace("aiperf", '""')
    path = write("run.yaml", text)
    with pytest.raises(DocumentError) as info:
        load_document(path, EvaluationRun)
    assert info.value.path == "harness"
    assert info.value.message == "must not be empty (+1 more)"
    assert str(info.value) == f"{path}: harness: must not be empty (+1 more)"


def test_load_document_missing_file_raises(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="no such file"):
        load_document(tmp_path / "absent.yaml", EvaluationRun)


def test_load_document_of_the_wrong_kind_raises(write: WriteFn) -> None:
    text = SEED_EVALUATION_RUN_YAML.replace("kind: EvaluationRun", "kind: Prediction").replace(
        "harness: aiperf\n", "predictor: servescope-sim\npredictor_version: '0.1'\n"
    )
    path = write("prediction.yaml", text)
    assert isinstance(load(path).document, Prediction)
    with pytest.raises(DocumentError, match="is a Prediction, expected EvaluationRun"):
        load_document(path, EvaluationRun)


def test_load_document_accepts_a_file_with_only_warnings(write: WriteFn) -> None:
    text = SEED_EVALUATION_RUN_YAML.replace("    ttft_ms: 212.4\n    itl_ms: 7.1\n", "")
    path = write("run.yaml", text)
    assert triples(load(path).issues) == [("warning", "points[1]")]
    assert isinstance(load_document(path, EvaluationRun), EvaluationRun)


# --- never raises ------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.binary(max_size=300), suffix=st.sampled_from([".yaml", ".json", ".yml", ""]))
def test_arbitrary_bytes_never_raise(tmp_path_factory: pytest.TempPathFactory, content: bytes, suffix: str) -> None:
    path = tmp_path_factory.mktemp("fuzz") / f"doc{suffix}"
    path.write_bytes(content)
    loaded = load(path)
    assert loaded.ok == (loaded.document is not None)
    if loaded.document is None:
        assert any(i.level == "error" for i in loaded.issues)


@settings(max_examples=60, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from(list("kind:EvaluationRun-[]{},\"' \n\t0123456789.&*!|>#?%@`")), max_size=200),
    suffix=st.sampled_from([".yaml", ".json"]),
)
def test_arbitrary_yaml_ish_text_never_raises(tmp_path_factory: pytest.TempPathFactory, text: str, suffix: str) -> None:
    path = tmp_path_factory.mktemp("fuzz") / f"doc{suffix}"
    path.write_text(text, encoding="utf-8")
    loaded = load(path)
    assert all("\n" not in i.message for i in loaded.issues)


# --- src bugs found while writing these tests --------------------------------------------------


@pytest.mark.parametrize("content", ["# nothing here yet\n", b"\xef\xbb\xbf", "---\n"])
def test_comment_only_file_is_reported_as_empty(write: WriteFn, content: str | bytes) -> None:
    message = only_issue(load(write("doc.yaml", content)))
    assert "NoneType" not in message
    assert "empty" in message


def test_yaml_merge_key_override_is_not_a_duplicate(write: WriteFn) -> None:
    text = (
        "kind: EvaluationRun\nname: n\nscenario: s\nharness: h\nengine_version: '1'\n"
        "points:\n"
        "  - &first\n    concurrency: 1\n    ttft_ms: 5.0\n"
        "  - <<: *first\n    concurrency: 2\n"
    )
    loaded = load(write("run.yaml", text))
    assert loaded.issues == []
    assert isinstance(loaded.document, EvaluationRun)
    assert [(p.concurrency, p.ttft_ms) for p in loaded.document.points] == [(1, 5.0), (2, 5.0)]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX named pipes")
def test_stream_larger_than_the_limit_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "stream.yaml"
    os.mkfifo(fifo)
    stop = threading.Event()
    chunk = b" " * MIB

    def feed() -> None:
        # Open without blocking so the thread ends even if load() never opens the pipe.
        while not stop.is_set():
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as exc:
                if exc.errno != errno.ENXIO:
                    return
                time.sleep(0.002)
                continue
            break
        else:
            return
        os.set_blocking(fd, True)
        try:
            for _ in range(21):
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fd, view) :]
        except OSError:
            pass  # the reader stopped early, as it should
        finally:
            os.close(fd)

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    try:
        loaded = load(fifo)
    finally:
        stop.set()
        feeder.join(timeout=5)
    message = only_issue(loaded)
    assert "empty" not in message  # 21 MiB arrived; the limit, or "not a regular file", is the answer


def test_loaded_source_is_kept(write: WriteFn, load_text: Callable[..., Loaded]) -> None:
    path = write("x.yaml", SEED_EVALUATION_RUN_YAML)
    assert load(path).source == str(path)
    assert load_text("kind: Foo\n").data == {"kind": "Foo"}
