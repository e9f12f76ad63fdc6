"""The eval-code suites' own tests: every row's reference passes them, and code that is right only
on a row's easy inputs (or uses what its prompt forbids) fails them (in the real sandbox)."""

from __future__ import annotations

import json

import pytest

from servescope.catalog.store import packaged_root
from servescope.scoring import score_item
from servescope.scoring.base import Output
from tests.scoring.conftest import working_sandbox

pytestmark = pytest.mark.integration

# A correct solution per task, keyed by the function the prompt names (the rows carry no reference:
# DatasetRow has no such field). Each obeys its prompt's prohibitions.
REFERENCES = {
    "add": "def add(a, b):\n    return a + b\n",
    "is_even": "def is_even(n):\n    return n % 2 == 0\n",
    "reverse_string": "def reverse_string(s):\n    return s[::-1]\n",
    "maximum": "def maximum(xs):\n    best = xs[0]\n    for x in xs[1:]:\n        if x > best:\n            best = x\n    return best\n",
    "count_vowels": "def count_vowels(s):\n    return sum(1 for ch in s if ch in 'aeiou')\n",
    "factorial": "def factorial(n):\n    out = 1\n    for k in range(2, n + 1):\n        out *= k\n    return out\n",
    "fizzbuzz": (
        "def fizzbuzz(n):\n    if n % 15 == 0:\n        return 'FizzBuzz'\n    if n % 3 == 0:\n        return 'Fizz'\n"
        "    if n % 5 == 0:\n        return 'Buzz'\n    return str(n)\n"
    ),
    "square_all": "def square_all(xs):\n    return [x * x for x in xs]\n",
    "is_palindrome": "def is_palindrome(s):\n    return s == s[::-1]\n",
    "sum_digits": "def sum_digits(n):\n    return sum(int(d) for d in str(n))\n",
    "first_word": "def first_word(s):\n    return s.split()[0]\n",
    "celsius_to_f": "def celsius_to_f(c):\n    return c * 9 / 5 + 32\n",
    "sort_numbers": (
        "def sort_numbers(xs):\n    out = []\n    for x in xs:\n        i = 0\n        while i < len(out) and out[i] <= x:\n"
        "            i += 1\n        out.insert(i, x)\n    return out\n"
    ),
    "word_counts": "def word_counts(s):\n    counts = {}\n    for w in s.split():\n        counts[w] = counts.get(w, 0) + 1\n    return counts\n",
    "distinct": "def distinct(xs):\n    out = []\n    for x in xs:\n        if x not in out:\n            out.append(x)\n    return out\n",
}

# Wrong code of the classes v1's two asserts let through, each right on every v1 input of its row.
WRONG_ON_EDGES = {
    "add": "def add(a, b):\n    return int(a) + int(b)\n",
    "is_even": "def is_even(n):\n    return n > 0 and n % 2 == 0\n",
    "reverse_string": "def reverse_string(s):\n    return ''.join(sorted(s, reverse=True))\n",
    "maximum": "def maximum(xs):\n    return xs[1] if len(xs) > 1 and xs[1] > xs[0] else xs[0]\n",
    "count_vowels": "def count_vowels(s):\n    return len(set(s) & set('aeiou')) + (s.count('a') > 1) * (s.count('a') - 1)\n",
    "factorial": "def factorial(n):\n    return 1 if n == 0 else n * (n - 1) * (n - 2) * (n - 3) * (n - 4) if n >= 5 else n\n",
    "fizzbuzz": (
        "def fizzbuzz(n):\n    if n == 15:\n        return 'FizzBuzz'\n    if n % 3 == 0:\n        return 'Fizz'\n"
        "    if n % 5 == 0:\n        return 'Buzz'\n    return str(n)\n"
    ),
    "square_all": "def square_all(xs):\n    for i, x in enumerate(xs):\n        xs[i] = x * x\n    return xs\n",
    "is_palindrome": "def is_palindrome(s):\n    return s[0] == s[-1]\n",
    "sum_digits": "def sum_digits(n):\n    return n % 9\n",
    "first_word": "def first_word(s):\n    return s.split(' ')[0][:5]\n",
    "celsius_to_f": "def celsius_to_f(c):\n    return c * 9 // 5 + 32 if c >= 0 else c\n",
}

# Wrong code of the classes v2's asserts let through and v3's catch, keyed (function, class): each is right
# on every input of its v2 row and wrong on an input its prompt covers (build_eval_datasets.py's
# CODE_CLASS_TESTS_V3 names the classes). The first is the held-out grader's false accept.
PASSES_V2_WRONG_BY_CLASS = {
    ("square_all", "order"): "def square_all(xs):\n    return sorted(x * x for x in xs)\n",
    ("square_all", "exact"): "def square_all(xs):\n    return [x ** 2.0 for x in xs]\n",
    ("square_all", "new list"): "def square_all(xs):\n    if not xs:\n        return xs\n    return [x * x for x in xs]\n",
    ("sort_numbers", "new list"): (
        "def sort_numbers(xs):\n    if len(xs) <= 1:\n        return xs\n    pivot, rest = xs[0], xs[1:]\n"
        "    return sort_numbers([x for x in rest if x < pivot]) + [pivot] + sort_numbers([x for x in rest if x >= pivot])\n"
    ),
    ("sort_numbers", "length"): (
        "def sort_numbers(xs):\n    ys = list(xs)\n    for _ in range(2):\n        for i in range(len(ys) - 1):\n"
        "            if ys[i] > ys[i + 1]:\n                ys[i], ys[i + 1] = ys[i + 1], ys[i]\n    return ys\n"
    ),
    ("maximum", "input kept"): "def maximum(xs):\n    xs.sort()\n    return xs[-1]\n",
    ("distinct", "input kept"): (
        "def distinct(xs):\n    i = 0\n    while i < len(xs):\n        if xs[i] in xs[:i]:\n            del xs[i]\n"
        "        else:\n            i += 1\n    return xs\n"
    ),
    ("distinct", "falsy items"): (
        "def distinct(xs):\n    seen = {}\n    out = []\n    for x in xs:\n        if not seen.get(x):\n"
        "            seen[x] = x\n            out.append(x)\n    return out\n"
    ),
    ("add", "exact"): "def add(a, b):\n    return float(a) + float(b)\n",
    ("add", "exact, fsum"): "import math\n\ndef add(a, b):\n    return math.fsum([a, b])\n",
    ("reverse_string", "whitespace"): "def reverse_string(s):\n    return s.strip()[::-1]\n",
    ("reverse_string", "case"): "def reverse_string(s):\n    return s.lower()[::-1]\n",
    ("count_vowels", "not a consonant is not a vowel"): "def count_vowels(s):\n    return sum(1 for ch in s if ch not in 'bcdfghjklmnpqrstvwxyz')\n",
    ("word_counts", "compared exactly"): (
        "def word_counts(s):\n    counts = {}\n    for w in s.split():\n        w = w.strip('.,;:!?')\n"
        "        counts[w] = counts.get(w, 0) + 1\n    return counts\n"
    ),
    ("word_counts", "whitespace"): (
        "def word_counts(s):\n    counts = {}\n    for w in s.replace('\\t', ' ').replace('\\n', ' ').split(' '):\n"
        "        if w:\n            counts[w] = counts.get(w, 0) + 1\n    return counts\n"
    ),
    ("is_palindrome", "deeper mismatch"): "def is_palindrome(s):\n    return s[:2] == s[-2:][::-1]\n",
    ("is_palindrome", "mismatch in the middle"): "def is_palindrome(s):\n    return s[:3] == s[-3:][::-1]\n",
    ("fizzbuzz", "multiples, not digits"): (
        "def fizzbuzz(n):\n    fizz = n % 3 == 0 or '3' in str(n)\n    buzz = n % 5 == 0 or '5' in str(n)\n    return 'Fizz' * fizz + 'Buzz' * buzz or str(n)\n"
    ),
    ("fizzbuzz", "multiples beyond 30"): (
        "def fizzbuzz(n):\n    if n in (15, 30):\n        return 'FizzBuzz'\n    if n % 3 == 0:\n        return 'Fizz'\n"
        "    if n % 5 == 0:\n        return 'Buzz'\n    return str(n)\n"
    ),
}

# Code that passes a forbidding row's tests but uses what its prompt forbids.
USES_FORBIDDEN = {
    "maximum": "def maximum(xs):\n    return max(xs)\n",
    "sort_numbers": "def sort_numbers(xs):\n    ys = list(xs)\n    ys.sort()\n    return ys\n",
    "word_counts": "from collections import Counter\n\ndef word_counts(s):\n    return dict(Counter(s.split()))\n",
    "distinct": "def distinct(xs):\n    seen = set()\n    return [x for x in xs if not (x in seen or seen.add(x))]\n",
}


def _rows(dataset: str) -> list[dict[str, object]]:
    path = packaged_root() / "datasets" / f"{dataset}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _function(row: dict[str, object]) -> str:
    text = str(row["text"])
    return text.split("`def ", 1)[1].split("(", 1)[0]


def _score(code: str, row: dict[str, object]) -> tuple[bool, str | None]:
    s = score_item("code_exec", Output(f"```python\n{code}```"), None, row["score_args"])  # type: ignore[arg-type]
    return s.correct, s.detail


CODE_DATASETS = sorted(p.name.removesuffix(".jsonl") for p in (packaged_root() / "datasets").glob("eval-code-v*.jsonl"))
ALL_ROWS = [(ds, row) for ds in CODE_DATASETS for row in _rows(ds)]


@pytest.fixture(scope="module", autouse=True)
def _sandbox() -> None:
    working_sandbox()


def test_every_code_row_has_a_reference() -> None:
    missing = sorted({_function(row) for _ds, row in ALL_ROWS} - set(REFERENCES))
    assert not missing, f"write a reference for {missing}"


@pytest.mark.parametrize(("dataset", "row"), ALL_ROWS, ids=[str(r["id"]) for _d, r in ALL_ROWS])
def test_the_reference_passes_every_test_of_its_row(dataset: str, row: dict[str, object]) -> None:
    assert _score(REFERENCES[_function(row)], row) == (True, None)


V3_ROWS = {_function(row): row for row in _rows("eval-code-v3")}
V2_ROWS = {_function(row): row for row in _rows("eval-code-v2")}
V1_ROWS = {_function(row): row for row in _rows("eval-code-v1")}


@pytest.mark.parametrize("name", sorted(WRONG_ON_EDGES))
def test_code_right_only_on_the_easy_inputs_fails_v2_and_v3(name: str) -> None:
    assert _score(WRONG_ON_EDGES[name], V1_ROWS[name])[0] is True  # v1's two asserts let it through
    assert _score(WRONG_ON_EDGES[name], V2_ROWS[name])[0] is False
    assert _score(WRONG_ON_EDGES[name], V3_ROWS[name])[0] is False


@pytest.mark.parametrize(("name", "wrong_class"), sorted(PASSES_V2_WRONG_BY_CLASS), ids=[f"{n}-{c}" for n, c in sorted(PASSES_V2_WRONG_BY_CLASS)])
def test_code_wrong_by_a_class_v2_misses_fails_v3(name: str, wrong_class: str) -> None:
    code = PASSES_V2_WRONG_BY_CLASS[(name, wrong_class)]
    assert _score(code, V2_ROWS[name]) == (True, None)  # v2's asserts let it through
    correct, detail = _score(code, V3_ROWS[name])
    assert correct is False
    assert detail is not None and detail.endswith("AssertionError"), detail  # an assert catches it, not a crash


@pytest.mark.parametrize(("version", "name"), [(v, n) for v in ("v2", "v3") for n in sorted(USES_FORBIDDEN)])
def test_code_using_what_the_prompt_forbids_fails(version: str, name: str) -> None:
    row = {"v2": V2_ROWS, "v3": V3_ROWS}[version][name]
    stripped = {**row["score_args"], "forbidden": None}  # type: ignore[dict-item]
    assert _score(USES_FORBIDDEN[name], {**row, "score_args": stripped})[0] is True  # it passes the asserts
    correct, detail = _score(USES_FORBIDDEN[name], row)
    assert correct is False
    assert detail is not None and detail.startswith("forbidden by the prompt")


def test_every_forbidding_prompt_has_its_field() -> None:
    """A v2 or v3 prompt that says "without using" / "without importing" carries score_args.forbidden."""
    for row in [*V2_ROWS.values(), *V3_ROWS.values()]:
        says = "without using" in str(row["text"]) or "without importing" in str(row["text"])
        assert says == bool(row["score_args"].get("forbidden")), row["id"]  # type: ignore[union-attr]


def test_v2_asks_v1_s_prompts_word_for_word_and_is_a_published_successor() -> None:
    """The blind sets' code answers were written for v1's prompts and are scored with v2's tests
    (benchmarks/scorer_blind_agreement.py): that holds only while v2 asks the same prompts."""
    from servescope.catalog.store import Catalog

    v1, v2 = _rows("eval-code-v1"), _rows("eval-code-v2")
    assert [r["text"] for r in v2[: len(v1)]] == [r["text"] for r in v1]
    catalog = Catalog.load([])
    w = catalog.workload("eval-code-v2")
    assert (w.dataset_id, w.supersedes, w.params.num_requests) == ("eval-code-v2", "eval-code-v1", len(v2))


def test_v3_asks_v2_s_prompts_word_for_word_keeps_its_asserts_and_adds_some_to_every_row() -> None:
    """v3 judges answers written for v1's and v2's prompts (scorer_blind_agreement.py scores a code_exec case
    with the newest row of the same prompt): same prompts, same forbidden constructs, v2's asserts first and
    unchanged, at least one more assert on every row."""
    from servescope.catalog.store import Catalog

    v2, v3 = _rows("eval-code-v2"), _rows("eval-code-v3")
    assert [r["text"] for r in v3] == [r["text"] for r in v2]
    for old, new in zip(v2, v3, strict=True):
        old_args, new_args = old["score_args"], new["score_args"]
        assert new_args.get("forbidden") == old_args.get("forbidden"), new["id"]  # type: ignore[union-attr]
        old_tests, new_tests = str(old_args["tests"]).splitlines(), str(new_args["tests"]).splitlines()  # type: ignore[index]
        assert new_tests[: len(old_tests)] == old_tests and len(new_tests) > len(old_tests), new["id"]
    w = Catalog.load([]).workload("eval-code-v3")
    assert (w.dataset_id, w.supersedes, w.params.num_requests) == ("eval-code-v3", "eval-code-v2", len(v3))
