"""The ForceBench drafting patterns: one table of local force-raising rewrites per axis.

Each rule finds a *limiter* in an evidence sentence (the visible boundary of what the passage
warrants) and rewrites that one phrase into its stronger form. The evidence sentence is the
calibrated claim; the rewrite is the raised claim. Rules never add an entity or a number, and every
rule belongs to exactly one axis, so a draft changes one local phrase on one axis.

| axis | limiter in the evidence | raised form | severity |
| --- | --- | --- | --- |
| relation | `is/are/was/were associated with`, `linked to/with`, `correlated with` | `causes/cause/caused` | 2 |
| relation | `has/have been associated with / linked to / correlated with` | `has/have been shown to cause` | 2 |
| relation | `associated with`, `linked to/with`, `related to` after an outcome noun (`deaths related to X`) | `caused by` | 2 |
| relation | `help(s) (to) VERB` for a listed effect verb (`prevent`, `reduce`, `protect`, …) | `VERB(s)` | 2 |
| relation | `to/can/may/might/could/will/help(s) treat` | `… cure` | 2 |
| relation | `increase(s/d)/raise(s/d) the risk/chance/likelihood/odds of` | `cause(s/d)` | 2 |
| relation | `reduce(s/d)/lower(s/ed)/decrease(s/d) the risk/chance/likelihood/odds of` | `prevent(s/ed)` | 2 |
| relation | `a risk factor for`, `risk factors for` | `a cause of`, `causes of` | 2 |
| relation | `contribute(s/d) to` (not before an `-ing` word) | `cause(s/d)` | 1 |
| relation | `is/are recommended`, `recommend(s)` | `is/are required`, `require(s)` | 2 |
| modality | `may`, `might`, `could` (not `could not`, not `… have`) | `will` | 2 |
| modality | `possibly`, `potentially`, `perhaps`, `probably` | `definitely` / `certainly` | 2 |
| modality | `is/are/was/were (very/highly/more) likely to` | `… certain to` | 2 |
| modality | `suggest(s/ed) that`, `indicate(s/d) that` | `prove(s/d) that` | 2 |
| modality | `is/are/was/were thought/believed/considered/said/presumed/suspected to` | `… known to` | 2 |
| modality | `sometimes`, `often`, `frequently`, `usually`, `generally`, `typically`, `commonly` | `always` | 2 |
| scope | `some`, `many`, `several`, `most` before `of` or a plural noun (not `times`, `years`, …) | `all` | 3 / 2 / 2 / 1 |
| scope | `the/a majority of` | `all of` | 1 |
| scope | `in some/many/most cases` | `in all cases` | 2 |
| scope | `in/among/for` + a study population (`children`, `women`, `mice`, `patients with X`, …) | deleted | 2 (animals: 3) |
| scope | `in/across/throughout` + a named jurisdiction (`the United States`, `the UK`, `California`, …), not in a list | deleted | 2 |
| temporal | `as of [month] [day,] year`, in a sentence without `was/were/had/did` | `currently` | 2 |
| temporal | `is/are expected/projected/predicted/forecast/scheduled/set/planned/slated/poised/anticipated/on track to` | `will` | 2 |
| temporal | `was/were the` + superlative or office (`largest`, `capital`, `president`, …), in a sentence with no date or time phrase | `is/are the …` | 2 |
| temporal | `had a population of`, `had N employees/members/residents/…` | `has …` | 2 |
| temporal | `was/were ranked/rated/named/voted/listed`, in a sentence with no date or time phrase | `is/are …` | 2 |
| temporal | `since [month] [day,] year`, in a sentence with `has`/`have` | `for all time` | 1 |
| temporal | `currently`, `at present`, `presently`, `is/are now` | `always` | 1 |
| numeric | `about`, `approximately`, `around`, `roughly`, `circa`, `close to`, `(an) estimated`, `some` + number | deleted (exact point) | 1 |
| numeric | `more/less/fewer than`, `over`, `under`, `at least`, `at most`, `up to`, `nearly`, `almost`, `upwards of` + number | deleted (bound becomes point) | 2 |
| numeric | `N to/–M` (not a year range, not `from`/`between N …`) | `M` (range becomes endpoint) | 2 |

A limiter right after a negation (`not`, `no`, `never`, `n't`, `without`) is not rewritten.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from eviscope.normalize import norm

__all__ = ["RULES", "Edit", "Rule", "find_edits", "raising_axes"]

_NEGATION = re.compile(r"\b(?:not|no|never|without|cannot)\s+(?:\w+\s+){0,1}$|n't\s+(?:\w+\s+){0,1}$", re.I)


@dataclass(frozen=True)
class Rule:
    """One force-raising rewrite: ``pattern`` finds the limiter, ``replace`` gives its stronger form."""

    axis: str
    name: str
    pattern: re.Pattern[str]
    replace: Callable[[re.Match[str]], str]
    severity: Callable[[re.Match[str]], int]
    boundary: str
    """What the limiter bounds, for the rationale ("an association, not causation")."""
    veto: re.Pattern[str] | None = None
    """A sentence matching ``veto`` is not rewritten by this rule (e.g. a dated past state)."""


@dataclass(frozen=True)
class Edit:
    """One application of a rule to a sentence."""

    rule: Rule
    start: int
    end: int
    old: str
    new: str
    raised: str
    severity: int


def _pick(table: dict[str, str], group: int = 1) -> Callable[[re.Match[str]], str]:
    return lambda m: table[m.group(group).lower()]


def _const(text: str) -> Callable[[re.Match[str]], str]:
    return lambda m: text


def _sev(n: int) -> Callable[[re.Match[str]], int]:
    return lambda m: n


def _sub(template: str) -> Callable[[re.Match[str]], str]:
    return lambda m: m.expand(template)


_CAUSE = {"is": "causes", "are": "cause", "was": "caused", "were": "caused"}
_VERB3 = "s|es|d|ed"
_MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December"
    "|Jan\\.?|Feb\\.?|Mar\\.?|Apr\\.?|Jun\\.?|Jul\\.?|Aug\\.?|Sept?\\.?|Oct\\.?|Nov\\.?|Dec\\.?"
)
_POPULATIONS = (
    "children|adults|women|men|infants|adolescents|teenagers|girls|boys|the elderly|older adults"
    "|young adults|pregnant women|postmenopausal women|mice|rats|animals|primates|monkeys|dogs"
    "|patients with [a-z]+(?: [a-z]+)?|people with [a-z]+(?: [a-z]+)?|smokers|students|veterans"
)
_JURISDICTIONS = (
    "the United States|the U\\.S\\.|the US|America|the UK|the United Kingdom|Britain|England|Scotland"
    "|Wales|Ireland|Canada|Australia|New Zealand|India|China|Japan|Germany|France|Italy|Spain"
    "|Europe|the EU|the European Union|Africa|Asia|California|Texas|New York|Florida|Ontario"
    "|Quebec|Sweden|Norway|Denmark|the Netherlands|Brazil|Mexico|South Africa|Singapore"
)
_OFFICES = (
    "(?:(?:\\w+['’]s )?\\w+est|one of the (?:\\w+est|most \\w+)|most \\w+|capital|president"
    "|prime minister|ceo|chairman|chair|leader|head|director|champion|champions|owner|owners"
    "|manager|governor|mayor|king|queen|home|headquarters|record holder|only \\w+)"
)
_NUMBER = r"\$?\d[\d,]*(?:\.\d+)?"
_OUTCOMES = (
    "|".join(
        f"{w}s|{w}"
        for w in [
            "risk",
            "death",
            "complication",
            "symptom",
            "problem",
            "injury",
            "cost",
            "effect",
            "disease",
            "condition",
            "illness",
            "disorder",
            "issue",
            "change",
            "loss",
            "harm",
            "difficulty",
            "danger",
            "hazard",
            "infection",
            "side",
            "effect",
        ]
    )
    + "|injuries|illnesses|difficulties|losses|damage|mortality|morbidity|pain|stress|inflammation"
)
_HELPED_VERBS = (
    "prevent|reduce|protect|improve|lower|increase|maintain|support|build|create|control|manage|promote"
    "|boost|relieve|ease|fight|heal|regulate|stabilize|stabilise|strengthen|restore|remove|eliminate|avoid"
    "|ensure|explain|identify|determine|develop|shape|fund|enforce|flush|provide|trap|modify|solve|address"
    "|slow|stop|clear|repair|burn|detect|predict|cut|limit|minimize|minimise|lessen|alleviate|combat"
    "|decrease|raise|drive|speed|accelerate|preserve|secure|guarantee|treat|cure|reverse|balance"
)

RULES: tuple[Rule, ...] = (
    # relation: association, mention, risk or recommendation becomes causation, prevention, obligation
    Rule(
        "relation",
        "association-to-causation",
        re.compile(
            r"\b(is|are|was|were) (?:(?:strongly|significantly|positively|closely|independently|often|"
            r"also) )?(?:associated with|linked to|linked with|correlated with)\b"
        ),
        _pick(_CAUSE),
        _sev(2),
        "an association, not causation",
    ),
    Rule(
        "relation",
        "association-to-proven-causation",
        re.compile(
            r"\b(has|have) been (?:(?:strongly|consistently|repeatedly) )?"
            r"(?:associated with|linked to|linked with|correlated with)\b"
        ),
        _sub(r"\1 been shown to cause"),
        _sev(2),
        "an association, not causation",
    ),
    Rule(
        "relation",
        "associated-to-caused-by",
        re.compile(rf"\b({_OUTCOMES}) (?:associated with|linked to|linked with|related to)\b"),
        _sub(r"\1 caused by"),
        _sev(2),
        "an association, not causation",
    ),
    Rule(
        "relation",
        "help-to-direct-effect",
        re.compile(rf"(?<!\bthe )(?<!\bwith )(?<!\ba )\b(helps|help) (?:to )?({_HELPED_VERBS})\b"),
        lambda m: _third_person(m.group(2)) if m.group(1) == "helps" else m.group(2),
        _sev(2),
        "a contributing help, not the direct effect",
    ),
    Rule(
        "relation",
        "treatment-to-cure",
        re.compile(r"\b(to|can|may|might|could|will|help|helps) treat\b"),
        _sub(r"\1 cure"),
        _sev(2),
        "a treatment, not a cure",
    ),
    Rule(
        "relation",
        "risk-increase-to-causation",
        re.compile(
            r"\b(increase|increases|increased|raise|raises|raised) the (?:risk|chance|likelihood|odds) of\b"
        ),
        _pick(
            {
                "increase": "cause",
                "increases": "causes",
                "increased": "caused",
                "raise": "cause",
                "raises": "causes",
                "raised": "caused",
            }
        ),
        _sev(2),
        "a raised risk, not causation",
    ),
    Rule(
        "relation",
        "risk-reduction-to-prevention",
        re.compile(
            r"\b(reduce|reduces|reduced|lower|lowers|lowered|decrease|decreases|decreased) the "
            r"(?:risk|chance|likelihood|odds) of\b"
        ),
        _pick(
            {
                "reduce": "prevent",
                "reduces": "prevents",
                "reduced": "prevented",
                "lower": "prevent",
                "lowers": "prevents",
                "lowered": "prevented",
                "decrease": "prevent",
                "decreases": "prevents",
                "decreased": "prevented",
            }
        ),
        _sev(2),
        "a lower risk, not prevention",
    ),
    Rule(
        "relation",
        "risk-factor-to-cause",
        re.compile(r"\b(a risk factor|risk factors) for\b"),
        _pick({"a risk factor": "a cause of", "risk factors": "causes of"}),
        _sev(2),
        "a risk factor, not a cause",
    ),
    Rule(
        "relation",
        "contribution-to-causation",
        re.compile(r"\b(contribute|contributes|contributed) to\b(?! \w+ing\b)"),
        _pick({"contribute": "cause", "contributes": "causes", "contributed": "caused"}),
        _sev(1),
        "a contribution, not the cause",
    ),
    Rule(
        "relation",
        "recommendation-to-obligation",
        re.compile(
            r"\b(?:(is|are) (?:generally |often |usually |strongly )?recommended|(recommends|recommend))\b"
        ),
        lambda m: (
            f"{m.group(1)} required"
            if m.group(1)
            else {"recommends": "requires", "recommend": "require"}[m.group(2)]
        ),
        _sev(2),
        "a recommendation, not an obligation",
    ),
    # modality: possible, suggestive or hedged becomes definite, proven or guaranteed
    Rule(
        "modality",
        "possibility-to-certainty",
        re.compile(r"\b(?:may|might|could)\b(?! not\b| have\b| never\b)"),
        _const("will"),
        _sev(2),
        "a possibility, not a certainty",
    ),
    Rule(
        "modality",
        "hedge-adverb-to-certainty",
        re.compile(r"\b(possibly|potentially|perhaps|probably)\b"),
        _pick(
            {
                "possibly": "definitely",
                "potentially": "definitely",
                "perhaps": "certainly",
                "probably": "certainly",
            }
        ),
        _sev(2),
        "a hedged statement, not a certain one",
    ),
    Rule(
        "modality",
        "likelihood-to-certainty",
        re.compile(r"\b(is|are|was|were) (?:(?:very|highly|more|most) )?likely to\b"),
        _sub(r"\1 certain to"),
        _sev(2),
        "a likelihood, not a certainty",
    ),
    Rule(
        "modality",
        "suggestion-to-proof",
        re.compile(r"\b(suggests|suggest|suggested|indicates|indicate|indicated) that\b"),
        _pick(
            {
                "suggests": "proves that",
                "suggest": "prove that",
                "suggested": "proved that",
                "indicates": "proves that",
                "indicate": "prove that",
                "indicated": "proved that",
            }
        ),
        _sev(2),
        "a suggestion, not proof",
    ),
    Rule(
        "modality",
        "belief-to-knowledge",
        re.compile(
            r"\b(is|are|was|were) (?:widely |generally |commonly )?(?:thought|believed|considered|said|"
            r"presumed|suspected) to\b"
        ),
        _sub(r"\1 known to"),
        _sev(2),
        "a belief, not established knowledge",
    ),
    Rule(
        "modality",
        "frequency-to-universality",
        re.compile(r"\b(?:sometimes|often|frequently|usually|generally|typically|commonly)\b"),
        _const("always"),
        _sev(2),
        "a tendency, not something that always holds",
    ),
    # scope: a bounded population, share or jurisdiction becomes general
    Rule(
        "scope",
        "quantifier-to-universal",
        re.compile(
            r"(?<!\bthe )(?<!\bThe )\b(some|Some|many|Many|several|Several|most|Most)\b"
            r"(?= of\b| (?:[a-z]+s|people|children|men|women)\b)(?! \d)"
            r"(?! (?:times|years|days|weeks|months|hours|minutes|decades|centuries|ways|things)\b)"
        ),
        _const("all"),
        lambda m: {"some": 3, "many": 2, "several": 2, "most": 1}[m.group(1).lower()],
        "a part of the group, not all of it",
    ),
    Rule(
        "scope",
        "majority-to-universal",
        re.compile(r"\b(?:the|a) (?:vast )?majority of\b"),
        _const("all of"),
        _sev(1),
        "a majority, not all",
    ),
    Rule(
        "scope",
        "some-cases-to-all-cases",
        re.compile(r"\bin (?:some|many|most|certain) cases\b"),
        _const("in all cases"),
        _sev(2),
        "some cases, not all cases",
    ),
    Rule(
        "scope",
        "population-to-general",
        re.compile(rf",? (?:especially |particularly |mainly )?(?:in|among|for) (?:({_POPULATIONS}))\b"),
        _const(""),
        lambda m: 3 if m.group(1) in {"mice", "rats", "animals", "primates", "monkeys", "dogs"} else 2,
        "a specific study population, not everyone",
    ),
    Rule(
        "scope",
        "jurisdiction-to-general",
        re.compile(rf" (?:in|across|throughout) (?:{_JURISDICTIONS})\b(?! [A-Z]| and\b| or\b|,? and\b|,)"),
        _const(""),
        _sev(2),
        "one jurisdiction, not everywhere",
    ),
    # temporal: dated, predicted or as-of evidence becomes current or timeless
    Rule(
        "temporal",
        "as-of-to-current",
        re.compile(
            rf"\b[Aa]s of (?:(?:early |mid-|late |the end of )?(?:{_MONTHS}) )?(?:\d{{1,2}},? )?(?:19|20)\d\d\b"
        ),
        _const("currently"),
        _sev(2),
        "a state as of a given date, not the current state",
        veto=re.compile(r"\b(?:was|were|had|did)\b", re.I),
    ),
    Rule(
        "temporal",
        "prediction-to-future-fact",
        re.compile(
            r"\b(?:is|are) (?:expected|projected|predicted|forecast|scheduled|set|planned|slated|poised"
            r"|anticipated|on track) to\b"
        ),
        _const("will"),
        _sev(2),
        "a prediction, not a settled future fact",
    ),
    Rule(
        "temporal",
        "past-state-to-present",
        re.compile(rf"\b(was|were) (the {_OFFICES})\b"),
        lambda m: {"was": "is", "were": "are"}[m.group(1)] + " " + m.group(2),
        _sev(2),
        "a past state, not the current one",
        veto=re.compile(
            r"\b(?:1[5-9]\d\d|20\d\d|century|centuries|period|era|until|from|during|ago|years|then|"
            r"at the time|once|formerly|former|previously|later|when|after|before|age)\b",
            re.I,
        ),
    ),
    Rule(
        "temporal",
        "past-count-to-present",
        re.compile(
            rf"\bhad ((?:a population of|(?:about |approximately |around |over |more than )?{_NUMBER} "
            rf"(?:employees|members|residents|inhabitants|students|stores|locations|users|subscribers"
            rf"|staff|branches|restaurants|casinos|hospitals|schools)))\b"
        ),
        _sub(r"has \1"),
        _sev(2),
        "a count at a past date, not the current count",
    ),
    Rule(
        "temporal",
        "past-ranking-to-present",
        re.compile(r"\b(was|were) (ranked|rated|named|voted|listed)\b"),
        lambda m: {"was": "is", "were": "are"}[m.group(1)] + " " + m.group(2),
        _sev(2),
        "a ranking at a past date, not the current one",
        veto=re.compile(
            r"\b(?:1[5-9]\d\d|20\d\d|century|until|from|during|ago|then|at the time|once|when)\b", re.I
        ),
    ),
    Rule(
        "temporal",
        "since-date-to-timeless",
        re.compile(rf"\bsince (?:(?:early |mid-|late )?(?:{_MONTHS}) )?(?:\d{{1,2}},? )?(?:1[5-9]|20)\d\d\b"),
        _const("for all time"),
        _sev(1),
        "a state since a given date, not a timeless one",
        veto=re.compile(r"^(?!.*\b(?:has|have)\b)"),
    ),
    Rule(
        "temporal",
        "current-to-timeless",
        re.compile(r"\b(?:currently|at present|presently|(?<=\bis )now|(?<=\bare )now)\b"),
        _const("always"),
        _sev(1),
        "the current state, not a timeless one",
    ),
    # numeric: approximate, bounded or ranged becomes an exact point
    Rule(
        "numeric",
        "approximation-to-exact",
        re.compile(
            rf"\b(?:about|approximately|around|roughly|circa|close to|an estimated|estimated|some) (?={_NUMBER})"
        ),
        _const(""),
        _sev(1),
        "an approximate quantity, not an exact one",
    ),
    Rule(
        "numeric",
        "bound-to-exact",
        re.compile(
            rf"\b(?:more than|less than|fewer than|over|under|at least|at most|up to|nearly|almost|upwards of)"
            rf" (?={_NUMBER})"
        ),
        _const(""),
        _sev(2),
        "a bound, not an exact quantity",
    ),
    Rule(
        "numeric",
        "range-to-endpoint",
        re.compile(
            rf"(?<!\bfrom )(?<!\bFrom )(?<!\bbetween )(?<![\d.,])(?!(?:19|20)\d\d\b)({_NUMBER})"
            rf"(?: ?(?:-|–|to) ?)(?!(?:19|20)\d\d\b)({_NUMBER})\b"
        ),
        lambda m: m.group(2),
        _sev(2),
        "a range, not a point value",
    ),
)
"""Every drafting rule, grouped by axis in canonical order."""


def _third_person(verb: str) -> str:
    """``reduce`` gives ``reduces``, ``carry`` gives ``carries``, ``fix`` gives ``fixes``."""
    if verb.endswith("y") and verb[-2:-1] not in tuple("aeiou"):
        return verb[:-1] + "ies"
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    return verb + "s"


def _apply(rule: Rule, sentence: str, m: re.Match[str]) -> Edit | None:
    if _NEGATION.search(sentence[: m.start()]) or (rule.veto is not None and rule.veto.search(sentence)):
        return None
    new = rule.replace(m)
    head, tail = sentence[: m.start()], sentence[m.end() :]
    if m.start() == 0:
        if new:
            new = new[0].upper() + new[1:]
        else:
            tail = tail.lstrip(" ,")
            tail = tail[:1].upper() + tail[1:]
    elif not new and head.endswith(" ") and tail.startswith(" "):
        tail = tail[1:]
    raised = head + new + tail
    return Edit(rule, m.start(), m.end(), m.group(0), new, raised, rule.severity(m))


def find_edits(sentence: str, axis: str | None = None) -> Iterator[Edit]:
    """Every force-raising rewrite of ``sentence`` (on ``axis`` only, when given), in rule order.

    >>> [e.raised for e in find_edits("Coffee may reduce fatigue.")]
    ['Coffee will reduce fatigue.']
    >>> [e.raised for e in find_edits("It sits around 1.5 to 2.0.", "numeric")]
    ['It sits 1.5 to 2.0.', 'It sits around 2.0.']
    """
    for rule in RULES:
        if axis is not None and rule.axis != axis:
            continue
        for m in rule.pattern.finditer(sentence):
            edit = _apply(rule, sentence, m)
            if edit is not None:
                yield edit


def raising_axes(calibrated: str, raised: str) -> set[str]:
    """The axes with a rule that rewrites ``calibrated`` into ``raised`` (compared after ``norm``)."""
    target = norm(raised)
    return {edit.rule.axis for edit in find_edits(calibrated) if norm(edit.raised) == target}
