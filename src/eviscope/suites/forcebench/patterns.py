"""The ForceBench drafting patterns: one table of local force-raising rewrites per axis.

The axes are the paper's (contract §5): a deontic shift (should → must) is modality, and a rule
whose rewrite is no pair of those axes keeps its row below with its ``Rule.reject`` reason, so the
build report counts what it would have drafted. Each rule finds a *limiter* in a claim (the visible boundary of what its cited passage warrants:
the force marker) and rewrites that one phrase into its stronger form; the rewrite is the raised
claim. Rules never add an entity or a number, and every rule belongs to exactly one axis, so a
draft changes one local phrase on one axis. ``LICENSING`` says, per rule, when a cited span
warrants the claim's marker (the same or an equally strong marker, unnegated, next to the word it
governs or tied to the same number, year, population or noun) and when it would already warrant
the raised form (``licenses``, ``licenses_raised``).

| axis | limiter in the evidence | raised form | severity |
| --- | --- | --- | --- |
| relation | `is/are/was/were associated with`, `linked to/with`, `correlated with` | `causes/cause/caused` | 2 |
| relation | `has/have been associated with / linked to / correlated with` | `has/have been shown to cause` | 2 |
| relation | `associated with`, `linked to/with`, `related to` after an outcome noun (`deaths related to X`) | `caused by` | 2 |
| relation | `help(s) (to) VERB` for a listed effect verb (`prevent`, `reduce`, `protect`, …) | `VERB(s)`; rejected: `not_association_to_causation` | 2 |
| relation | `to/can/may/might/could/will/help(s) treat` | `… cure`; rejected: `not_association_to_causation` | 2 |
| relation | `increase(s/d)/raise(s/d) the risk/chance/likelihood/odds of` | `cause(s/d)` | 2 |
| relation | `reduce(s/d)/lower(s/ed)/decrease(s/d) the risk/chance/likelihood/odds of` | `prevent(s/ed)` | 2 |
| relation | `a risk factor for`, `risk factors for` | `a cause of`, `causes of` | 2 |
| relation | `contribute(s/d) to` (not before an `-ing` word) | `cause(s/d)` | 1 |
| modality | `is/are recommended`, `recommend(s)` (not before `no`, `not`, `against`) | `is/are required`, `require(s)` | 2 |
| modality | `should`, `ought to` (not in a `whether`/`if` sentence, not `should be noted/mentioned/…`) | `must` | 2 |
| relation | `can/may/could/…/that/which/it influence(s)` (a verb, not before a comma) | `… determine(s)` | 2 |
| relation | `partly/partially/in part/largely` before `due to`, `because`, `caused by`, … | deleted | 2 |
| modality | `may`, `might`, `could` (not `… not`, not `… have`; not `could` in a past-tense sentence or before `be …ed`) | `will` | 2 |
| modality | `possibly`, `potentially`, `perhaps`, `probably`, `will/would likely` | `definitely` / `certainly` | 2 |
| modality | `is/are/was/were (very/highly/more) likely to` | `… certain to` | 2 |
| modality | `suggest(s/ed) that`, `indicate(s/d) that` | `prove(s/d) that` | 2 |
| modality | `is/are/was/were thought/believed/considered/said/presumed/suspected to` | `… known to` | 2 |
| modality | `sometimes`, `often`, `frequently`, `usually`, `generally`, `typically`, `commonly` (not before `known as`, `called`, …) | `always` | 2 |
| scope | `some`, `many`, `several`, `most` before `of` or a plural noun (not `times`, `years`, …; not after `is/are/was/were`, `as`, `how`, `so`, `too`; not before `N, including`/`such as`; not with `others` after it) | `all` | 3 / 2 / 2 / 1 |
| scope | `the/a majority of` | `all of` | 1 |
| scope | `mainly`, `primarily`, `chiefly` / `mostly`, `largely`, `predominantly` | `only` / `entirely` | 2 |
| scope | `in some/many/most cases` | `in all cases` | 2 |
| scope | `in/among/for` + a study population (`children`, `women`, `mice`, `patients with X`, …) | deleted | 2 (animals: 3) |
| scope | `in/across/throughout` + a named jurisdiction (`the United States`, `the UK`, `California`, …), not in a list, not right after a verb or a number (an event's place or a count's, not a scope) | deleted | 2 |
| temporal | `as of [month] [day,] year`, `as of the year census/survey/estimates/figures/data`, in a sentence without `was/were/had/did` or `today/currently/now` | `currently` | 2 |
| temporal | `is/are expected/projected/predicted/forecast/scheduled/set/planned/slated/poised/anticipated/on track to` | `will` | 2 |
| temporal | `was/were the` + superlative or office (`largest`, `capital`, `president`, …), in a sentence with no date or time phrase | `is/are the …` | 2 |
| temporal | `had a population of`, `had N employees/members/residents/…` | `has …` | 2 |
| temporal | `was/were ranked/rated/named/voted/listed` (not `named after/for`), in a sentence with no date or time phrase | `is/are …` | 2 |
| temporal | `since [month] [day,] year` ending a clause, in a sentence with `has`/`have` | `for all time`; rejected: `unnatural_raise` | 1 |
| temporal | `currently`, `at present`, `presently`, `is/are now` (not `what is now`) | `always`; rejected: `unnatural_raise` | 1 |
| numeric | `about`, `approximately`, `around`, `roughly`, `circa`, `close to`, `(an) estimated`, `some`, `nearly`, `almost` + number | deleted (exact point; `in` before a bare year) | 1 |
| numeric | `more/less/fewer than`, `over`, `under`, `at least`, `at most`, `up to`, `upwards of` + number | deleted; rejected: `bound_deletion_only` | 2 |
| numeric | `N to/–M` with N < M (not a year range or a score, no `from`/`between` just before) | `M` (range becomes endpoint) | 2 |

A limiter right after a negation (`not`, `no`, `never`, `n't`, `without`) is not rewritten.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache

from eviscope.core.normalize import contains, norm


@cache
def english_stop_words() -> frozenset[str]:
    """scikit-learn's English stop words, imported on first use: sklearn takes over a second to import,
    and every CLI command loads this module."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return ENGLISH_STOP_WORDS


__all__ = ["RULES", "Edit", "Rule", "english_stop_words", "find_edits", "raising_axes"]

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
    veto_before: re.Pattern[str] | None = None
    """A match with ``veto_before`` in the 25 characters before it is not rewritten (``between``)."""
    accept: Callable[[re.Match[str]], bool] | None = None
    """A match is rewritten only when ``accept`` holds (e.g. a range runs from low to high)."""
    reject: str = ""
    """The rejection reason of a rule that finds a limiter but whose rewrite is not a pair of the
    paper's axes (issue 24): its drafts are counted under this reason and never kept."""


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
    match: re.Match[str] = field(compare=False, repr=False)
    """The rule's match in the sentence (its groups hold the anchor: the number, year, population…)."""


def _pick(table: dict[str, str], group: int = 1) -> Callable[[re.Match[str]], str]:
    return lambda m: table[m.group(group).lower()]


def _const(text: str) -> Callable[[re.Match[str]], str]:
    return lambda m: text


def _sev(n: int) -> Callable[[re.Match[str]], int]:
    return lambda m: n


def _sub(template: str) -> Callable[[re.Match[str]], str]:
    return lambda m: m.expand(template)


_DETERMINE = {
    "influences": "determines",
    "influence": "determine",
    "affects": "determines",
    "affect": "determine",
}
_CAUSE = {"is": "causes", "are": "cause", "was": "caused", "were": "caused"}
_VERB3 = "s|es|d|ed"
_MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December"
    "|Jan\\.?|Feb\\.?|Mar\\.?|Apr\\.?|Jun\\.?|Jul\\.?|Aug\\.?|Sept?\\.?|Oct\\.?|Nov\\.?|Dec\\.?"
)
_POPULATIONS = (
    "children|adults|women|men|infants|adolescents|teenagers|girls|boys|the elderly|older adults"
    "|young adults|pregnant women|postmenopausal women|mice|rats|animals|primates|monkeys|dogs"
    "|patients with (?!and\\b|or\\b)[a-z]+(?: (?!and\\b|or\\b)[a-z]+)?"
    "|people with (?!and\\b|or\\b)[a-z]+(?: (?!and\\b|or\\b)[a-z]+)?|smokers|students|veterans"
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
_PAST = re.compile(r"\b(?:was|were|had|did)\b", re.I)
_YEAR_AHEAD = re.compile(r"(?:1[5-9]|20)\d\d\b(?![\d,.]\d)|\d+\s?(?:BCE|BC|CE|AD)\b")
_IN_BEHIND = re.compile(r"\b(?:in|by|from|since|until|of|to|before|after) $", re.I)
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
        re.compile(
            rf"\b({_OUTCOMES}) (?:associated with|linked to|linked with)\b"
            r"|\b(deaths|injuries|illnesses|complications|hospitalizations|fatalities) related to\b"
        ),
        lambda m: f"{m.group(1) or m.group(2)} caused by",
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
        reject="not_association_to_causation",
    ),
    Rule(
        "relation",
        "treatment-to-cure",
        re.compile(r"\b(to|can|may|might|could|will|help|helps) treat\b"),
        _sub(r"\1 cure"),
        _sev(2),
        "a treatment, not a cure",
        reject="not_association_to_causation",
    ),
    Rule(
        "relation",
        "risk-increase-to-causation",
        re.compile(
            r"\b(increase|increases|increased|raise|raises|raised) the (?:risk|chance|likelihood|odds) of\b"
            r"(?! \w+ing\b)"
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
        "modality",
        "recommendation-to-obligation",
        re.compile(
            r"\b(?:(is|are) (?:generally |often |usually |strongly )?recommended|(recommends|recommend))\b"
            r"(?! no\b| against\b| not\b)"
        ),
        lambda m: (
            f"{m.group(1)} required"
            if m.group(1)
            else {"recommends": "requires", "recommend": "require"}[m.group(2)]
        ),
        _sev(2),
        "a recommendation, not an obligation",
    ),
    Rule(
        "modality",
        "advice-to-obligation",
        re.compile(
            r"\b(?:should|ought to)\b(?! not\b| have\b| also\b)"
            r"(?!(?: be)? (?:noted|mentioned|said|remembered|emphasi[sz]ed|stressed|pointed out|kept in mind)\b)"
        ),
        _const("must"),
        _sev(2),
        "advice, not an obligation",
        veto=re.compile(r"\b(?:whether|if)\b", re.I),
    ),
    Rule(
        "relation",
        "influence-to-determination",
        re.compile(
            r"\b(can|may|could|might|will|would|to|does|do|did|also|that|which|who|it|strongly|directly"
            r"|greatly|largely) (influences|influence)\b(?![,;])"
        ),
        lambda m: m.group(1) + " " + _DETERMINE[m.group(2).lower()],
        _sev(2),
        "an influence, not the determining factor",
    ),
    Rule(
        "relation",
        "partial-to-sole-cause",
        re.compile(
            r"\b(?:partly|partially|in part|at least partly|largely) (?=due to\b|because\b|caused by\b|"
            r"responsible for\b|explained by\b|attributed to\b|the result of\b)"
        ),
        _const(""),
        _sev(2),
        "a partial cause, not the whole cause",
    ),
    # modality: possible, suggestive or hedged becomes definite, proven or guaranteed
    Rule(
        "modality",
        "possibility-to-certainty",
        re.compile(
            r"\b(?:may|might)\b(?! not\b| have\b| never\b)|\bcould\b(?! not\b| have\b| never\b| be \w+ed\b)"
        ),
        _const("will"),
        _sev(2),
        "a possibility, not a certainty",
        accept=lambda m: m.group(0).lower() != "could" or not _PAST.search(m.string),
    ),
    Rule(
        "modality",
        "hedge-adverb-to-certainty",
        re.compile(
            r"\b(possibly|potentially|perhaps|probably)\b|(?<=\bwill )(likely)\b|(?<=\bwould )(likely)\b"
        ),
        lambda m: {
            "possibly": "definitely",
            "potentially": "definitely",
            "perhaps": "certainly",
            "probably": "certainly",
            "likely": "certainly",
        }[m.group(0).lower()],
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
        re.compile(
            r"\b(?:sometimes|often|frequently|usually|generally|typically|commonly)\b"
            r"(?! (?:known as|called|referred to as|named|described as|cited as|used to refer)\b)"
        ),
        _const("always"),
        _sev(2),
        "a tendency, not something that always holds",
    ),
    # scope: a bounded population, share or jurisdiction becomes general
    Rule(
        "scope",
        "quantifier-to-universal",
        re.compile(
            r"(?<!\bthe )(?<!\bThe )(?<!\bare )(?<!\bis )(?<!\bwere )(?<!\bwas )(?<!\bas )(?<!\bAs )"
            r"(?<!\bhow )(?<!\bHow )(?<!\bso )(?<!\btoo )(?<!'s )(?<!’s )(?<!\bof )(?<!\bits )(?<!\btheir )"
            r"\b(some|Some|many|Many|several|Several|most|Most)\b"
            r"(?! \w+(?:ous|ss|ful|ive|ic|al|able|ible)\b)"
            r"(?!(?: [\w-]+){1,2},? (?:including|such as)\b)"
            r"(?= of\b| (?:[a-z]+s|people|children|men|women)\b)(?! \d)"
            r"(?! (?:times|years|days|weeks|months|hours|minutes|decades|centuries|ways|things)\b)"
        ),
        _const("all"),
        lambda m: {"some": 3, "many": 2, "several": 2, "most": 1}[m.group(1).lower()],
        "a part of the group, not all of it",
        accept=lambda m: not re.search(r"\bothers?\b", m.string[m.end() :]),
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
        "mainly-to-only",
        re.compile(r"\b(mainly|mostly|primarily|largely|predominantly|chiefly)\b(?! of\b)"),
        lambda m: "only" if m.group(1).lower() in {"mainly", "primarily", "chiefly"} else "entirely",
        _sev(2),
        "mostly, not exclusively",
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
        veto_before=re.compile(
            r"\b(?:\w+ed|\w+ing|was|were|is|are|be|been|began|begun|held|born|made|built|sold|grown|known|found"
            r"|took|won|lived|died|released)$|\d"
        ),
    ),
    # temporal: dated, predicted or as-of evidence becomes current or timeless
    Rule(
        "temporal",
        "as-of-to-current",
        re.compile(
            rf"\b[Aa]s of (?:(?:early |mid-|late |the end of )?(?:{_MONTHS}) )?(?:\d{{1,2}},? )?(?:19|20)\d\d\b"
            r"|\b[Aa]s of the (?:19|20)\d\d (?:census|survey|estimates?|figures|data)\b"
        ),
        _const("currently"),
        _sev(2),
        "a state as of a given date, not the current state",
        veto=re.compile(r"\b(?:was|were|had|did|today|currently|now|at present|presently)\b", re.I),
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
        re.compile(r"\b(was|were) (ranked|rated|named|voted|listed)\b(?! after\b| for\b| in hono| by\b)"),
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
        re.compile(
            rf"\bsince (?:(?:early |mid-|late )?(?:{_MONTHS}) )?(?:\d{{1,2}},? )?(?:1[5-9]|20)\d\d\b(?=\s*[.;,]|$)"
        ),
        _const("for all time"),
        _sev(1),
        "a state since a given date, not a timeless one",
        veto=re.compile(r"^(?!.*\b(?:has|have)\b)"),
        reject="unnatural_raise",
    ),
    Rule(
        "temporal",
        "current-to-timeless",
        re.compile(
            r"\b(?:currently|at present|presently|(?<=\bis )(?<!what is )now|(?<=\bare )(?<!what are )now)\b"
        ),
        _const("always"),
        _sev(1),
        "the current state, not a timeless one",
        reject="unnatural_raise",
    ),
    # numeric: approximate, bounded or ranged becomes an exact point
    Rule(
        "numeric",
        "approximation-to-exact",
        re.compile(
            rf"\b(?:about|approximately|around|roughly|circa|close to|an estimated|estimated|some|nearly|almost)"
            rf" (?={_NUMBER})"
        ),
        lambda m: (
            "in "
            if _YEAR_AHEAD.match(m.string, m.end()) and not _IN_BEHIND.search(m.string, 0, m.start())
            else ""
        ),
        _sev(1),
        "an approximate quantity, not an exact one",
    ),
    Rule(
        "numeric",
        "bound-to-exact",
        re.compile(
            rf"\b(?:more than|less than|fewer than|over|under|at least|at most|up to|upwards of)"
            rf" (?={_NUMBER})"
        ),
        _const(""),
        _sev(2),
        "a bound, not an exact quantity",
        reject="bound_deletion_only",
    ),
    Rule(
        "numeric",
        "range-to-endpoint",
        re.compile(
            rf"(?<!\bfrom )(?<!\bFrom )(?<!\bbetween )(?<![\d.,⁄/])(?!(?:19|20)\d\d\b)({_NUMBER})"
            rf"(?: ?(?:-|–|to) ?)(?!(?:19|20)\d\d\b)({_NUMBER})\b"
        ),
        lambda m: m.group(2),
        _sev(2),
        "a range, not a point value",
        veto_before=re.compile(r"\b(?:between|from|[Bb]etween|[Ff]rom)\b"),
        accept=lambda m: float(_number_key(m.group(1))) < float(_number_key(m.group(2))),
    ),
)
"""Every drafting rule, grouped by axis in canonical order."""


# ---------------------------------------------------------------------------------------------
# Licensing: does a cited span warrant a claim's limiter, and does it warrant the raised form?
#
# A span licenses the calibrated claim's marker when it holds, unnegated, a marker of the same
# family at the same or a stronger level that is still below the raise (``may`` is licensed by
# ``may``, ``might``, ``could``, ``can``, ``possibly``, …; ``often`` by ``often``, ``usually``, …;
# ``many`` by ``many`` or ``most``), tied to the same anchor where the limiter has one (the same
# number, year, population, jurisdiction or noun). A span licenses the raised claim when it holds
# the raised marker itself (``will``, ``causes``, ``all``, ``currently``, the bare number, …).


def _unnegated(pattern: re.Pattern[str], text: str) -> bool:
    """True when ``pattern`` matches ``text`` somewhere not right after a negation."""
    return any(not _NEGATION.search(text[: m.start()]) for m in pattern.finditer(text))


Check = Callable[[str, re.Match[str]], bool]
_NEAR = 60
_NEAR_BEFORE = 20


def _governed(m: re.Match[str]) -> str:
    """The first five letters of the first content word in the three words after the match (the
    word the marker governs: ``may reduce`` gives ``reduc``), or ``""``."""
    for word in m.string[m.end() :].split()[:3]:
        word = word.strip(",.;:()\"'“”").lower()
        if len(word) > 2 and word not in english_stop_words():
            return word[:5]
    return ""


def _marker(regex: str) -> Check:
    """The span holds ``regex`` unnegated, with the word the claim's marker governs at most
    ``_NEAR`` characters after it, or ``_NEAR_BEFORE`` before it (a marker placed after its verb)."""
    pattern = re.compile(regex, re.I)

    def check(span: str, m: re.Match[str]) -> bool:
        stem = _governed(m)
        for found in pattern.finditer(span):
            if _NEGATION.search(span[: found.start()]):
                continue
            near = span[max(0, found.start() - _NEAR_BEFORE) : found.end() + _NEAR].lower()
            if not stem or re.search(rf"\b{re.escape(stem)}", near):
                return True
        return False

    return check


def _raised_marker(regex: str) -> Check:
    """The span holds ``regex`` anywhere, unnegated (a raised marker anywhere in it is enough)."""
    pattern = re.compile(regex, re.I)
    return lambda span, m: _unnegated(pattern, span)


def _never(span: str, m: re.Match[str]) -> bool:
    return False


def _number_key(text: str) -> str:
    return text.replace(",", "").lstrip("$")


_APPROX = r"(?:about|approximately|around|roughly|circa|close to|an estimated|estimated|some|nearly|almost|~)"
_UPPER = (
    r"(?:less than|fewer than|under|below|at most|up to|no more than|nearly|almost|as many as|as much as)"
)
_LOWER = r"(?:more than|over|above|at least|upwards of|exceeding|in excess of|no fewer than|no less than)"
_ANY_LIMIT = rf"(?:{_APPROX}|{_UPPER}|{_LOWER}|between|from)"
_SPAN_NUMBER = re.compile(r"\$?\d[\d,]*(?:\.\d+)?")
_RANGE_JOIN = re.compile(r"^\s?(?:-|–|to|and)\s?\$?\d")


def _number_after(m: re.Match[str]) -> str:
    """The number a numeric limiter bounds: the one right after the match (``about 300`` gives 300)."""
    found = _SPAN_NUMBER.match(m.string, m.end())
    return _number_key(found.group(0)) if found else ""


def _endpoint(m: re.Match[str]) -> str:
    return _number_key(m.group(2))


def _limited_number(limiter: str) -> Check:
    """The span puts ``limiter`` right before the limiter's number (``about 300``)."""

    def check(span: str, m: re.Match[str]) -> bool:
        number = _number_after(m)
        for found in re.finditer(rf"\b{limiter}\s+(\$?\d[\d,]*(?:\.\d+)?)", span, re.I):
            if _number_key(found.group(1)) == number:
                return True
        return False

    return check


def _bare_number(number_of: Callable[[re.Match[str]], str]) -> Check:
    """The span states the raised number exactly: with no limiter before it and in no range."""

    def check(span: str, m: re.Match[str]) -> bool:
        number = number_of(m)
        for found in _SPAN_NUMBER.finditer(span):
            if _number_key(found.group(0)) != number:
                continue
            before, after = span[max(0, found.start() - 20) : found.start()], span[found.end() :]
            limited = re.search(rf"\b{_ANY_LIMIT}\s+$", before, re.I) or re.search(
                r"(?:-|–|\bto)\s?$", before
            )
            if not limited and not _RANGE_JOIN.match(after):
                return True
        return False

    return check


def _bound(span: str, m: re.Match[str]) -> bool:
    """The span bounds the same number in the same direction (``less than 20%`` by ``under 20%``)."""
    upper = re.fullmatch(rf"{_UPPER}\s*", m.group(0), re.I) is not None
    return _limited_number(_UPPER if upper else _LOWER)(span, m)


def _span_range(span: str, m: re.Match[str]) -> bool:
    low, high = _number_key(m.group(1)), _number_key(m.group(2))
    for found in re.finditer(r"(\$?\d[\d,]*(?:\.\d+)?)\s?(?:-|–|to|and)\s?(\$?\d[\d,]*(?:\.\d+)?)", span):
        if (_number_key(found.group(1)), _number_key(found.group(2))) == (low, high):
            return True
    return False


def _anchored(regex: str, anchor: Callable[[re.Match[str]], str]) -> Check:
    """The span holds ``regex`` and the match's anchor word (compared on its first five letters)."""
    marker = re.compile(regex, re.I)

    def check(span: str, m: re.Match[str]) -> bool:
        stem = anchor(m).lower()[:5]
        return _unnegated(marker, span) and bool(re.search(rf"\b{re.escape(stem)}", span, re.I))

    return check


def _phrase(group: int) -> Check:
    """The span holds the match's group (a population, a jurisdiction, a year) as a phrase."""
    return lambda span, m: bool(re.search(rf"\b{re.escape(m.group(group))}\b", span, re.I))


_SAME_PLACE = (
    ("United States", "U.S.", "US", "USA", "U.S.A.", "America"),
    ("United Kingdom", "UK", "U.K.", "Britain"),
    ("European Union", "EU"),
)


def _jurisdiction(span: str, m: re.Match[str]) -> bool:
    """The span names the claim's jurisdiction (``the US`` also by ``the United States``, …)."""
    name = m.group(0).split(" ", 2)[-1].removeprefix("the ")
    names = next((group for group in _SAME_PLACE if name in group), (name,))
    return any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", span) for n in names)


def _year(span: str, m: re.Match[str]) -> bool:
    year = re.search(r"(?:1[5-9]|20)\d\d", m.group(0))
    return bool(year) and year.group(0) in span


_LEVELS = {
    "quantity": {
        "some": 1,
        "several": 1,
        "certain": 1,
        "a few": 1,
        "a number of": 1,
        "many": 2,
        "numerous": 2,
        "a lot of": 2,
        "most": 3,
        "majority": 3,
        "the bulk of": 3,
    },
    "frequency": {
        "sometimes": 1,
        "occasionally": 1,
        "at times": 1,
        "can": 1,
        "may": 1,
        "often": 2,
        "frequently": 2,
        "commonly": 2,
        "regularly": 2,
        "tend to": 2,
        "tends to": 2,
        "usually": 3,
        "generally": 3,
        "typically": 3,
        "normally": 3,
        "mostly": 3,
        "mainly": 3,
        "largely": 3,
        "in most cases": 3,
    },
}


def _level(family: str, word: str) -> int:
    return _LEVELS[family].get(word.lower(), 0)


def _at_level(family: str, anchor: Callable[[re.Match[str]], str]) -> Check:
    """The span holds a ``family`` marker at the claim's level or above, with the claim's anchor
    word (``anchor``: the noun a quantifier counts, the verb a frequency adverb modifies) near it."""
    words = sorted(_LEVELS[family], key=len, reverse=True)
    pattern = re.compile(rf"\b({'|'.join(map(re.escape, words))})\b", re.I)

    def check(span: str, m: re.Match[str]) -> bool:
        need = _level(family, m.group(1) if m.lastindex else m.group(0))
        stem = anchor(m)[:5]
        for found in pattern.finditer(span):
            if _NEGATION.search(span[: found.start()]) or _level(family, found.group(1)) < need:
                continue
            near = span[max(0, found.start() - _NEAR_BEFORE) : found.end() + _NEAR]
            if not stem or re.search(rf"\b{re.escape(stem)}", near, re.I):
                return True
        return False

    return check


def _following_noun(m: re.Match[str]) -> str:
    """The first content word after the match (``some of the regions`` gives ``regions``)."""
    rest = m.string[m.end() :].split()
    for word in rest[:4]:
        word = word.strip(",.;:()").lower()
        if word not in {"of", "the", "a", "an", "these", "those", "its", "their", "our"}:
            return word
    return ""


def _universal_before_noun(span: str, m: re.Match[str]) -> bool:
    noun = _following_noun(m)
    return bool(noun) and bool(
        re.search(rf"\b(?:all|every|each)\s+(?:\w+\s+){{0,2}}{re.escape(noun[:5])}", span, re.I)
    )


_CAUSAL = r"\bcaus(?:e|es|ed|ing)\b|\bleads? to\b|\bresults? in\b|\bresponsible for\b"
_ASSOCIATION = (
    r"\bassociat\w*|\blinked\b|\blinks?\b|\bcorrelat\w*|\brelated to\b|\brelationship\b|\bconnected (?:to|with)\b"
    r"|\btied to\b|\bconnection\b"
)
_HEDGE = r"\b(?:may|might|could|can|possibl\w*|potential\w*|perhaps|probabl\w*|likely|suggest\w*)\b"
_CERTAIN = r"\b(?:will(?! not\b)|definitely|certainly|always|guarantee[sd]?|undoubtedly|invariably)\b"
_ADVICE = r"\b(?:recommend\w*|advis\w*|suggest\w*|should|encourag\w*|urged?)\b"
_OBLIGATION = r"\b(?:requir\w*|must|mandatory|obligat\w*|compulsory)\b"


@dataclass(frozen=True)
class Licensing:
    """How a cited span licenses one rule's limiter (``calibrated``) and its raised form (``raised``)."""

    calibrated: Check
    raised: Check


LICENSING: dict[str, Licensing] = {
    "association-to-causation": Licensing(_marker(_ASSOCIATION), _raised_marker(_CAUSAL)),
    "association-to-proven-causation": Licensing(_marker(_ASSOCIATION), _raised_marker(_CAUSAL)),
    "associated-to-caused-by": Licensing(_marker(_ASSOCIATION), _raised_marker(_CAUSAL)),
    "help-to-direct-effect": Licensing(_anchored(r"\bhelp(?:s|ed|ing)?\b", lambda m: m.group(2)), _never),
    "treatment-to-cure": Licensing(_marker(r"\btreat\w*"), _raised_marker(r"\bcur(?:e|es|ed|ing)\b")),
    "risk-increase-to-causation": Licensing(
        _marker(
            r"\b(?:increas|rais|elevat|higher|greater)\w* (?:\w+ ){0,3}(?:risk|chance|likelihood|odds)\b"
        ),
        _raised_marker(_CAUSAL),
    ),
    "risk-reduction-to-prevention": Licensing(
        _marker(r"\b(?:reduc|lower|decreas|less|smaller)\w* (?:\w+ ){0,3}(?:risk|chance|likelihood|odds)\b"),
        _raised_marker(r"\bprevent\w*"),
    ),
    "risk-factor-to-cause": Licensing(_marker(r"\brisk factors?\b"), _raised_marker(_CAUSAL)),
    "contribution-to-causation": Licensing(
        _marker(r"\bcontribut\w*|\bplays? (?:a|an) (?:\w+ )?role\b"), _raised_marker(_CAUSAL)
    ),
    "recommendation-to-obligation": Licensing(_marker(_ADVICE), _raised_marker(_OBLIGATION)),
    "advice-to-obligation": Licensing(_marker(_ADVICE), _raised_marker(_OBLIGATION)),
    "influence-to-determination": Licensing(
        _marker(r"\b(?:influenc\w*|affect\w*|impact\w*|shap(?:e|es|ed|ing)|effects?)\b"),
        _raised_marker(r"\b(?:determin\w*|dictat\w*|decid\w*|control\w*)\b|" + _CAUSAL),
    ),
    "partial-to-sole-cause": Licensing(
        _marker(r"\b(?:partly|partially|in part|largely|one of|contribut\w*|factors?)\b"),
        _raised_marker(r"\b(?:solely|entirely|only|wholly)\b"),
    ),
    "possibility-to-certainty": Licensing(_marker(_HEDGE), _raised_marker(_CERTAIN)),
    "hedge-adverb-to-certainty": Licensing(_marker(_HEDGE), _raised_marker(_CERTAIN)),
    "likelihood-to-certainty": Licensing(
        _marker(r"\b(?:likely|probabl\w*|tends? to|often|usually|generally|commonly|frequently)\b"),
        _raised_marker(r"\bcertain\b|" + _CERTAIN),
    ),
    "suggestion-to-proof": Licensing(
        _marker(r"\b(?:suggest\w*|indicat\w*|impl(?:y|ies|ied)|points? to|hint\w*)\b|" + _HEDGE),
        _raised_marker(r"\b(?:prov(?:e|es|ed|en)|proof|establish\w*|confirm\w*|demonstrat\w*)\b"),
    ),
    "belief-to-knowledge": Licensing(
        _marker(
            r"\b(?:thought|believed|considered|said|presumed|suspected|regarded|seen as|viewed as|reputed"
            r"|claimed|alleged|according to)\b"
        ),
        _raised_marker(r"\bknown to\b|\bestablished\b|\bproven\b"),
    ),
    "frequency-to-universality": Licensing(
        _at_level("frequency", _governed), _raised_marker(r"\b(?:always|invariably|without exception)\b")
    ),
    "quantifier-to-universal": Licensing(_at_level("quantity", _following_noun), _universal_before_noun),
    "mainly-to-only": Licensing(
        _marker(
            r"\b(?:mainly|mostly|primarily|largely|predominantly|chiefly|most|majority|usually|generally)\b"
        ),
        _raised_marker(r"\b(?:only|solely|entirely|exclusively|wholly)\b"),
    ),
    "majority-to-universal": Licensing(_marker(r"\bmajority\b|\bmost\b"), _universal_before_noun),
    "some-cases-to-all-cases": Licensing(
        _marker(
            r"\bin (?:some|many|most|certain) cases\b|\bsometimes\b|\boften\b|\boccasionally\b|\bmay\b|\bcan\b"
        ),
        _raised_marker(r"\bin all cases\b|\balways\b"),
    ),
    "population-to-general": Licensing(
        _phrase(1), _raised_marker(r"\b(?:everyone|everybody|all ages|regardless of age|all people)\b")
    ),
    "jurisdiction-to-general": Licensing(
        _jurisdiction,
        _raised_marker(
            r"\b(?:worldwide|globally|everywhere|around the world|in the world|world's|all countries|internationally)\b"
        ),
    ),
    "as-of-to-current": Licensing(_year, _raised_marker(r"\b(?:currently|now|today|at present|presently)\b")),
    "prediction-to-future-fact": Licensing(
        _marker(
            r"\b(?:expected|projected|predicted|forecast|anticipated|scheduled|planned|set to|slated|poised"
            r"|on track|estimated to|likely to|aims? to|plans? to)\b"
        ),
        _raised_marker(r"\bwill\b|\bshall\b"),
    ),
    "past-state-to-present": Licensing(
        lambda span, m: bool(re.search(re.escape(m.group(0)), span, re.I)),
        lambda span, m: bool(re.search(rf"\b(?:is|are) {re.escape(m.group(2))}\b", span, re.I)),
    ),
    "past-count-to-present": Licensing(
        lambda span, m: bool(re.search(re.escape(m.group(0)), span, re.I)),
        lambda span, m: bool(re.search(rf"\bhas {re.escape(m.group(1))}", span, re.I)),
    ),
    "past-ranking-to-present": Licensing(
        lambda span, m: bool(re.search(re.escape(m.group(0)), span, re.I)),
        lambda span, m: bool(re.search(rf"\b(?:is|are) {re.escape(m.group(2))}\b", span, re.I)),
    ),
    "since-date-to-timeless": Licensing(_year, _raised_marker(r"\b(?:always|forever|for all time)\b")),
    "current-to-timeless": Licensing(
        _marker(r"\b(?:currently|now|at present|presently|today|as of|at the moment|recently)\b"),
        _raised_marker(r"\b(?:always|forever|permanently)\b"),
    ),
    "approximation-to-exact": Licensing(_limited_number(_APPROX), _bare_number(_number_after)),
    "bound-to-exact": Licensing(_bound, _bare_number(_number_after)),
    "range-to-endpoint": Licensing(_span_range, _bare_number(_endpoint)),
}
"""How a cited span licenses each rule's limiter and raised form, by rule name."""


def licenses(span: str, edit: Edit) -> bool:
    """True when ``span`` warrants the limiter that ``edit`` raises (see ``LICENSING``).

    >>> edit = next(find_edits("Coffee may reduce fatigue."))
    >>> licenses("Studies show coffee might reduce fatigue in adults.", edit)
    True
    >>> licenses("Coffee reduces fatigue.", edit)
    False
    """
    return LICENSING[edit.rule.name].calibrated(span, edit.match)


def licenses_raised(span: str, edit: Edit) -> bool:
    """True when ``span`` already warrants ``edit``'s raised form (its raised marker, or the raised
    claim word for word).

    >>> edit = next(find_edits("Coffee may reduce fatigue."))
    >>> licenses_raised("Coffee might reduce fatigue; it will not cure it.", edit)
    False
    >>> licenses_raised("Coffee will reduce fatigue.", edit)
    True
    """
    return LICENSING[edit.rule.name].raised(span, edit.match) or contains(span, edit.raised)


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
    if rule.veto_before is not None and rule.veto_before.search(sentence, max(0, m.start() - 25), m.start()):
        return None
    if rule.accept is not None and not rule.accept(m):
        return None
    new = rule.replace(m)
    head, tail = sentence[: m.start()], sentence[m.end() :]
    if m.start() == 0 or head.endswith((". ", "! ", "? ")):
        if new:
            new = new[0].upper() + new[1:]
        else:
            tail = tail.lstrip(" ,")
            tail = tail[:1].upper() + tail[1:]
    elif not new and head.endswith(" ") and tail.startswith(" "):
        tail = tail[1:]
    raised = head + new + tail
    return Edit(rule, m.start(), m.end(), m.group(0), new, raised, rule.severity(m), m)


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
