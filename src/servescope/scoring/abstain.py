"""abstain: for a question the passage (or the world) cannot answer, the right answer is to say so.

An abstention is recognised by meaning, not by a fixed sentence: one of the phrase
families a refusal is made of — the source is silent ("the passage does not say", "no
mention of"), the answer cannot be had ("cannot be determined", "there is no way to
know"), the speaker does not know or cannot find it ("I don't know", "I couldn't find
any information", "I'm not aware of any …"), the thing may not exist ("it may not
exist", "no record of", "fictional") — AND no committed claim beside it. A hedge that
goes on to answer anyway ("I don't know the exact details, but it was founded in 1887")
is a fabricated answer, not an abstention: once the refusing clauses are set aside, a
remaining clause that states a specific (a number, a date, a name after "is/was") is a
claim.

:func:`is_abstention` is also used on answerable rows of a grounded suite, so that
abstaining there counts against the model (``abstained`` is recorded either way)."""

from __future__ import annotations

import re
from dataclasses import replace

from servescope.scoring.answer import answer_text, json_answer, json_object
from servescope.scoring.base import Args, Output, Score, verdict

_NEG = r"(?:not|n't|n’t|never|no)"
_SOURCE = r"(?:passage|text|context|document|article|story|source|information given|provided information|question)"
_FAMILIES = [
    # the source is silent
    r"\b(?:not|never|isn'?t|wasn'?t)\s+(?:explicitly\s+|directly\s+)?(?:mentioned|stated|given|provided|specified|included|discussed|addressed|covered|indicated)\b",
    rf"\b(?:does|do|did)\s*{_NEG}\s+(?:explicitly\s+|directly\s+)?(?:say|mention|state|specify|provide|include|tell|contain|give|indicate|describe|discuss)\b",
    r"\bno\s+(?:information|mention|details?|data|indication|record|evidence|reference)\b",
    rf"\b(?:not|nothing)\s+(?:in|from)\s+the\s+{_SOURCE}\b",
    rf"\bthe\s+{_SOURCE}\s+(?:is\s+silent|says\s+nothing|only\s+(?:says|mentions))\b",
    # it cannot be answered
    r"\bcan(?:no|'|’)?t\s+(?:be\s+)?(?:determined?|answered?|found|known|tell|know|say|confirm|verify|provide|answer|find|determine|be\s+sure)\b",
    r"\b(?:cannot|can not|unable to|not able to|impossible to)\s+(?:\w+\s+){0,2}(?:determine|answer|tell|know|say|confirm|verify|find|provide|identify)\b",
    r"\bunanswerable\b|\b(?:insufficient|not enough|no)\s+(?:information|data|context|details)\b",
    r"\bthere(?:'s| is)\s+no\s+(?:way|answer|information|record)\b",
    # I do not know / could not find it
    r"\bi\s+(?:do\s+not|don'?t|don’t)\s+(?:know|have)\b|\bi'?m\s+not\s+sure\b|\bi\s+am\s+not\s+sure\b",
    r"\b(?:could|can|did)\s*(?:no|n'|n’)?t\s+find\b|\bcouldn'?t\s+find\b|\bwas\s+(?:not|unable)\s+(?:able\s+to\s+)?find\b",
    r"\b(?:i'?m|i am)\s+(?:not\s+aware|unaware)\s+of\b|\bnot\s+(?:familiar|aware)\s+with\b|\bunknown\b",
    r"\bno\s+(?:idea|clue)\b|\bnot\s+a\s+clue\b|\bbeats\s+me\b",
    # the same, in the languages the suites ask in
    r"\bje\s+ne\s+(?:le\s+)?sais\s+pas\b|\baucune\s+id[ée]e\b|\bje\s+l['’]ignore\b|\bje\s+ne\s+connais\s+pas\b",
    r"\bno\s+\w+(?:\s+\w+){0,5}\s+(?:that\s+)?i\s+(?:can|could)\s+(?:verify|find|confirm)\b|\b(?:won['’]?t|will\s+not)\s+(?:make\s+up|invent|guess)\b",
    r"\bno\s+(?:lo\s+)?s[ée]\b|\bno\s+tengo\s+(?:ni\s+)?idea\b|\bni\s+idea\b",
    r"\b(?:ich\s+)?wei(?:ß|ss)\s+(?:ich\s+)?(?:es\s+|das\s+)?(?:leider\s+|wirklich\s+|auch\s+)?nicht\b|\bkeine\s+ahnung\b|\bkeine\s+(?:\w+\s+)?(?:informationen|angaben|daten)\b",
    # the source is silent, in the suites' languages: "El pasaje no lo dice", "Le passage ne le précise pas",
    # "Der Text sagt das nicht", "O texto não diz", "Il testo non lo dice", "De tekst zegt het niet"
    r"\bno\s+(?:lo\s+)?(?:dice|menciona|indica|especifica|aclara)\b|\bne\s+(?:le\s+|l['’])?(?:dit|mentionne|pr[ée]cise|indique)\s+pas\b|"
    r"\b(?:sagt|nennt|erw[äa]hnt)\s+(?:\w+\s+){0,2}nicht\b|\bsteht\s+(?:das\s+|es\s+|dazu\s+|davon\s+|darüber\s+)?nicht\s+(?:im|in)\b|\bn[ãa]o\s+(?:o\s+)?(?:diz|menciona|indica|especifica)\b|"
    r"\bnon\s+(?:lo\s+)?(?:dice|menziona|indica|specifica)\b|\b(?:zegt|noemt|vermeldt)\s+(?:\w+\s+){0,2}niet\b",
    # "I don't know" with the verb first (Dutch, Scandinavian): "Dat weet ik niet", "Det vet jeg ikke"; "no information"
    r"\bweet\s+ik\s+(?:\w+\s+)?(?:het\s+)?niet\b|\bgeen\s+(?:\w+\s+)?informatie\b|\b(?:vet|ved)\s+(?:jeg|jag)\s+(?:det\s+)?(?:ikke|inte)\b|"
    r"\bingen\s+(?:\w+\s+)?information\b|\bbrak\s+(?:\w+\s+)?informacji\b",
    # "I have no (reliable) information" in French, Spanish, Italian, Portuguese
    r"\baucune\s+(?:\w+\s+)?information|\bpas\s+d['’](?:\w+\s+)?information|\bno\s+(?:tengo|hay|dispongo\s+de)\s+(?:\w+\s+)?informaci[óo]n|"
    r"\bnon\s+ho\s+(?:\w+\s+)?informazion|\bn[ãa]o\s+tenho\s+(?:\w+\s+)?informa[çc]",
    r"\bnon\s+(?:lo\s+)?so\b|\bnon\s+ne\s+ho\s+idea\b|\bn[ãa]o\s+(?:o\s+)?sei\b",
    r"不知道|不清楚|わかりません|分かりません|知りません|모르겠습니다|не\s+знаю",
    # Arabic, Hindi, Turkish, Dutch, Polish: "I don't know", "I have no (reliable) information"
    r"لا\s+أعرف|لا\s+أعلم|لا\s+أدري|لست\s+متأكد|لا\s+أملك\s+(?:أي\s+)?معلومات|(?:ليست?|ليس)\s+لدي[ّ]?\s+(?:أي\s+)?معلومات|لا\s+(?:تتوفر|توجد)\s+(?:لدي\s+)?(?:أي\s+)?معلومات|لا\s+يمكنني\s+(?:معرفة|تحديد|الإجابة)",
    r"मुझे\s+(?:नहीं\s+पता|पता\s+नहीं)|मैं\s+नहीं\s+जानता|\bbilmiyorum\b|\bbilgim\s+yok\b|\bik\s+weet\s+(?:het\s+)?niet\b|\bnie\s+wiem\b",
    # Persian, Hebrew, Greek, Indonesian/Malay, Vietnamese, Swedish/Norwegian/Danish
    r"نمی[\u200c\s]?دانم|לא\s+יודע(?:ת)?|δεν\s+(?:το\s+)?ξέρω|\btidak\s+tahu\b|\bkhông\s+biết\b|\b(?:jag\s+|jeg\s+)?(?:vet|ved)\s+(?:det\s+)?ikke\b|\bvet\s+inte\b",
    # the thing may not exist
    r"\bbestaat\s+(?:\w+\s+){0,2}niet\b|\bgibt\s+es\s+(?:\w+\s+){0,3}nicht\b|\bn['’]existe\s+(?:\w+\s+)?pas\b|\bno\s+existe\b|\bnon\s+esiste\b|\bn[ãa]o\s+existe\b|"
    r"\b(?:may|might|does|did)\s*(?:not|n't|n’t)\s+(?:exist|be\s+real)\b|\bno\s+such\b|\b(?:fictional|fictitious|made[- ]up|does not appear to exist)\b",
]
_REFUSAL = re.compile("|".join(f"(?:{f})" for f in _FAMILIES), re.IGNORECASE)
# A copula with a name after it: "der Erfinder war Hans Müller", "el inventor fue Juan Pérez", "c'était Jean Dupont",
# "het was Jan de Vries", "era Mario Rossi", "foi João Silva", "the founder was Karl Weber".
_COPULA_NAME = (
    r"\b(?:war|waren|ist|fue|fueron|es|era|eran|était|étaient|est|foi|é|was|is|were|are)\s+"
    r"(?:(?:der|die|das|el|la|le|les|il|lo|o|a|de|het|the)\s+)?(?-i:[A-ZÀ-ÖØ-Þ])\w+"
)
# A clause that commits to a specific despite the hedge: a number/year, or "it/he/she/they was/is X".
_CLAIM = re.compile(
    r"\d|\b(?:it|he|she|they|this|that|the\s+\w+)\s+(?:was|is|were|are|had|has)\s+(?!not\b|no\b|never\b|unclear\b|unknown\b|possible\b|likely\b)\w+"
    # a guess is a claim too: "it might be by Arthur Penrose", "it's most likely a sawmill owner", "dozens of schools"
    r"|\b(?:it|he|she|they|this|that)(?:['’]s|\s+(?:might|may|could|must|would)\s+(?:be|have))\s+(?:most\s+)?(?:likely\s+|probably\s+|perhaps\s+)?(?:by\s+|a\s+|an\s+|the\s+)?\w+"
    r"|\b(?:probably|likely|i\s+(?:think|guess|believe))\b\s+\w+"
    # a copula naming someone or something, in the suites' languages (_COPULA_NAME)
    r"|" + _COPULA_NAME +
    # the same guess in the suites' languages: "probablemente fue Marta", "wahrscheinlich Hamburg"
    r"|\b(?:probablemente|quiz[áa]s|tal\s+vez|probablement|peut-[êe]tre|wahrscheinlich|vermutlich|vielleicht|probabilmente|forse|provavelmente|talvez|waarschijnlijk|misschien)\b\s+\w+|\b(?:dozens|hundreds|thousands|several|many|a\s+few)\s+of\b"
    # an inference offered as the answer: "reading between the lines: Eli", "my best guess would be Oslo"
    r"|\b(?:reading\s+between\s+the\s+lines|(?:my\s+)?best\s+guess|if\s+i\s+had\s+to\s+(?:guess|say)|i['’]?d\s+(?:guess|say))\b\W+\w+"
    # "a reasonable estimate: Eli", "my rough guess is Oslo", "presumably the owner"
    r"|\b(?:(?:reasonable|rough|educated|fair|good|wild|safe)\s+(?:guess|estimate|bet)|my\s+(?:guess|estimate)|presumably)\b\W+\w+"
    # a summary line that states something (refusing ones are refusals): "TL;DR: Anna de Vries"
    r"|^\s*(?:tl;?\s?dr|summary|in\s+short|bottom\s+line|short\s+answer)\s*[:：—–-]\s*\w",
    re.IGNORECASE,
)
# What the source does say, set against the asked fact: "The passage gives the city (Lima) and the staff count (348),
# but nothing that answers ..." is a refusal on the asked fact, not a claim.
_SOURCE_SAYS_ONLY = re.compile(
    rf"\bthe\s+{_SOURCE}\s+(?:only\s+)?(?:gives|mentions|lists|states|says|provides|covers|names|includes|tells\s+us)\b[^.!?]*?,?\s+but\s+(?:nothing|not|no)\b",
    re.IGNORECASE,
)
# What the source covers, named by topic ("The passage covers where and when the workshop opened
# (Dakar, 1981) and what it builds."): a description of the source, not a claim on the asked fact.
_SOURCE_COVERS = re.compile(
    rf"^\W*(?:the|this)\s+{_SOURCE}\s+(?:only\s+)?(?:covers|mentions|gives|says|tells\s+us|describes|explains|lists|talks\s+about)\s+"
    r"(?:\w+\s+){0,2}?(?:where|when|what|how|who|which|why)\b[^:]*$",
    re.IGNORECASE,
)
_CLAUSES = re.compile(r"(?<=[.!?;])\s+|\s*,?\s+\b(?:but|however|though|although|yet|aber|mais|pero|però|mas|maar|ale)\b\s*,?\s*", re.IGNORECASE)


# A refusal that is itself denied ("It's not that I don't know: ...", "not because I can't say"): no refusal.
_DENIED_REFUSAL = re.compile(
    r"\b(?:not|isn['’]t|wasn['’]t)(?:\s+(?:that|because|as\s+if|true\s+that)(?:\s+(?:i|we|they|he|she))?)?\s+$",  # "it's not unknown", "not that we can't say"
    re.IGNORECASE,
)
# The clause a denied refusal opens ends at a colon or dash too: "It's not that I don't know: it is 340 km."
_AFTER_DENIED = re.compile(r"\s*[:—–]\s*|\s+-\s+")


def _refuses(clause: str) -> bool:
    """A refusing clause, unless its refusal is denied (and then what follows it is read as a claim)."""
    return any(not _DENIED_REFUSAL.search(clause[: m.start()]) for m in _REFUSAL.finditer(clause))


_KNOWN_KEYS = ("known", "answerable", "found", "can_answer", "answer_found", "answer_known")


def _json_declines(body: str) -> bool | None:
    """For a JSON reply with no answer under an answer key: True when every value is null or empty
    ({"name": null, "year": null}) or it says it is not known ({"known": false}); else None."""
    obj = json_object(body)
    if obj is None or not obj:
        return None
    stated = json_answer(body)
    if stated is not None and stated[1] is not None and stated[1] != "":
        return None
    if all(v is None or v == "" for v in obj.values()) or any(str(k).casefold() in _KNOWN_KEYS and v is False for k, v in obj.items()):
        return True
    return None


def is_abstention(text: str) -> bool:
    body = answer_text(text)
    if (declined := _json_declines(body)) is not None:
        return declined
    stated = json_answer(body)
    if stated is not None:  # {"answer": null, "known": false}: no answer given is declining to answer
        if stated[1] is None or (isinstance(stated[1], str) and not stated[1].strip()):
            return True
        if not isinstance(stated[1], str):
            return False  # {"answer": 1958}
        body = stated[1]  # {"answer": "I don't know"}: the answer's own words
    body = _SOURCE_SAYS_ONLY.sub("The passage does not say; nothing", body)
    clauses = [c for raw in _CLAUSES.split(body) if raw and raw.strip() for c in _split_denied(raw)]
    refusing = [c for c in clauses if _refuses(c)]
    if not refusing:
        return False
    others = [c for c in clauses if not _refuses(c) and not _covers_only(c)]
    if any(_CLAIM.search(c) for c in others):
        return False
    # a refusing clause may go on, after a comma or a dash, to name the answer anyway ("There is no more
    # information, the founder was Karl Weber"): a copula naming someone there is a claim
    tails = [c[last.end() :] for c in refusing if (last := _last_refusal(c)) is not None]
    return not any(_TAIL_CLAIM.match(t) for t in tails)


def _last_refusal(clause: str) -> re.Match[str] | None:
    found = None
    for found in _REFUSAL.finditer(clause):  # noqa: B007 - the last one is wanted
        pass
    return found


def _covers_only(clause: str) -> bool:
    """A sentence naming by topic what the source covers, with no name or value given as the asked fact."""
    return _SOURCE_COVERS.search(clause) is not None and not _NAMED.search(clause)


_TAIL_CLAIM = re.compile(r"\s*[,;:—–-].*?" + _COPULA_NAME, re.IGNORECASE | re.DOTALL)
# "it was Karl Weber who", "is Oslo": a copula naming someone or something: a claim even inside a description.
_NAMED = re.compile(r"\b(?:was|is|were|are)\s+(?:[A-Z]\w+)", re.UNICODE)


def _split_denied(clause: str) -> list[str]:
    """``clause`` cut after a denied refusal's colon or dash, so that the claim after it stands alone."""
    if not any(_DENIED_REFUSAL.search(clause[: m.start()]) for m in _REFUSAL.finditer(clause)):
        return [clause]
    return [c for c in _AFTER_DENIED.split(clause, maxsplit=1) if c.strip()]


def with_abstention(score: Score, text: str) -> Score:
    """``score`` with ``abstained`` set for a row another scorer judged: a wrong answer that
    declines to answer abstained (counted as false_abstention on the answerable rows of a
    suite that has unanswerable ones); a right one did not, whatever else it says."""
    if score.abstained is not None:
        return score
    return replace(score, abstained=not score.correct and is_abstention(text))


def score(output: Output, expected: object, args: Args) -> Score:
    said = is_abstention(output.text)
    return verdict(said, answer_text(output.text)[:80] or None, abstained=said)
