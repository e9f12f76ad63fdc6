"""Chunks without text in a server's token stream, and the clients that time them.

A client's ITL is the gaps between the stream chunks it counts. servescope's own
client counts the chunks that carry text (DESIGN.md, "content tokens"), and so does
the simulator's ITL by default: one gap per output token after the first.
``vllm bench serve`` times every SSE chunk that carries a choice, text or not
(vllm/benchmarks/lib/endpoint_request_func.py, vllm-project/vllm@3aee4a4f:
``if choices := data.get("choices")`` stamps the chunk; the first one is the TTFT,
each later one appends a gap), and on the chat endpoint servers send such chunks:

- vLLM's and TensorRT-LLM's chat streams open with a role-only chunk, sent in the
  same pass as the first token's text (vLLM ``serving_chat.py`` ``first_iteration``;
  TensorRT-LLM ``openai_server.py`` ``chat_stream_generator``); the finish reason
  rides on the last token's chunk. So a request of n tokens gives that client n gaps,
  one of about zero, where the tokens have n - 1: GPUStack's 128-token-prompt,
  4-token-output bursts print a mean ITL of exactly 3/4 of their mean TPOT, on vLLM
  0.10-0.11 and TensorRT-LLM 1.2 alike.
- SGLang's chat stream sends the role chunk first and the finish reason in a chunk of
  its own after the last token (``serving_chat.py`` ``_generate_chat_stream``: "Send
  finish_reason chunks for each index that completed"): two gaps of about zero.
- On the completions endpoint vLLM, SGLang and TensorRT-LLM send one chunk per output,
  the finish reason on the last (SGLang ``serving_completions.py``, TensorRT-LLM
  ``serve/postprocess_handlers.py`` ``completion_stream_post_processor``); the closing
  usage chunk has no choice (``choices=[]``), so it is not timed.

What is not listed is not known here: the ITL is then that of the chunks with text,
and ``textless_chunks`` says so in one line. Nor are tokens that stream no text: gpt-oss's
chat replies open with harmony's channel header (``<|channel|>analysis<|message|>``), which
the servers' harmony parsers turn into no chunk, so that client sees fewer, longer gaps than
tokens (GPUStack's gpt-oss 128:4 bursts on vLLM 0.10.2: mean ITL 1.5x the mean TPOT); the
prediction then says so in one line.
"""

from __future__ import annotations

from servescope.documents.config_id import normalize_engine
from servescope.documents.evaluation_run import API_ENDPOINTS

#: Clients that time every chunk carrying a choice, with the endpoint they call unless told.
TIMES_EVERY_CHUNK: dict[str, str] = {"vllm-bench-serve": "completions"}
"""``vllm bench serve``'s default ``--backend`` (``openai``) calls /v1/completions."""

#: (engine, endpoint) -> chunks without text per request: (before the first token's text, after the last token's).
TEXTLESS_CHUNKS: dict[tuple[str, str], tuple[int, int]] = {
    ("vllm", "chat"): (1, 0),
    ("vllm", "completions"): (0, 0),
    ("trt-llm", "chat"): (1, 0),
    ("trt-llm", "completions"): (0, 0),
    ("sglang", "chat"): (1, 1),
    ("sglang", "completions"): (0, 0),
}


def check_endpoint(endpoint: str) -> str:
    """``endpoint`` if it is one of ``API_ENDPOINTS``, else one line that says what to give."""
    if endpoint not in API_ENDPOINTS:
        raise ValueError(f"endpoint {endpoint!r}: give one of {', '.join(API_ENDPOINTS)}")
    return endpoint


def check_client(client: str) -> str:
    """``client`` if its stream timing is known here, else one line that names the known ones."""
    if client not in TIMES_EVERY_CHUNK:
        raise ValueError(f"stream client {client!r}: its chunk timing is not known here (known: {', '.join(TIMES_EVERY_CHUNK)})")
    return client


#: Architectures whose chat replies begin with tokens that stream no text (harmony's channel header).
SILENT_HEADER_ARCHITECTURES: frozenset[str] = frozenset({"GptOssForCausalLM"})


def textless_chunks(client: str | None, engine: str, endpoint: str | None, architecture: str | None = None) -> tuple[tuple[int, int], str | None]:
    """Chunks without text that ``client`` times in each request's stream from ``engine`` on
    ``endpoint`` (None: the client's default), as (before the first token, after the last),
    and a warning line where what that client sees is not known (then (0, 0): text chunks only)."""
    if client is None:
        return (0, 0), None  # servescope's client: chunks with text only
    check_client(client)
    api = endpoint or TIMES_EVERY_CHUNK[client]
    eng = normalize_engine(engine)
    known = TEXTLESS_CHUNKS.get((eng, check_endpoint(api)))
    if known is None:
        return (0, 0), (
            f"{client} times every stream chunk, with text or not; which chunks without text {eng} sends on the {api} "
            "endpoint is not known here, so the predicted ITL counts the chunks with text only"
        )
    if api == "chat" and architecture in SILENT_HEADER_ARCHITECTURES:
        return known, (
            f"{architecture}'s chat replies open with harmony's channel header, tokens that stream no chunk; {client} then "
            "times fewer, longer gaps than there are tokens, which the predicted ITL does not model (it has a gap per token)"
        )
    return known, None
