"""The ForceBench drafting rules: one declaration per local force-raising rewrite, grouped by axis.

The axes are the paper's (contract §5): a deontic shift (should → must) is modality, and a rule
whose rewrite is no pair of those axes keeps its declaration below with its ``Rule.reject`` reason, so
the build report counts what it would have drafted. Each rule finds a *limiter* in a claim (the
visible boundary of what its cited passage warrants: the force marker) and rewrites that one phrase
into its stronger form; the rewrite is the raised claim. Rules never add an entity or a number, and
every rule belongs to exactly one axis, so a draft changes one local phrase on one axis.

Each :class:`Rule` declares, in one place, how it matches (``pattern``, ``veto``, ``accept``), what
it writes (``replace``, ``severity``), when a cited span warrants the claim's marker and when it
would already warrant the raised form (``licensing``: the checks of
:mod:`eviscope.suites.forcebench.licensing`), and its row of the table below (``limiter``,
``raised_form``, ``severity_doc``). The table is :func:`rules_table`, and a test holds this
docstring to it:

| axis     | rule                              | limiter in the evidence                                                                                                                                                                                              | raised form                                                                                     | severity       |
|----------|-----------------------------------|----------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------|-------------------------------------------------------------------------------------------------|----------------|
| relation | `association-to-causation`        | `is/are/was/were associated with`, `linked to/with`, `correlated with`                                                                                                                                               | `causes/cause/caused` (`also`/`often` kept); `determines` before `the degree/extent/level/… of` | 2              |
| relation | `associated-change-to-effect`     | `is/are associated with / linked to` + `increased/higher/greater/more` or `reduced/lower/decreased/less/fewer`                                                                                                       | `increase(s)` / `reduce(s)` (a person's causal verb for the same change)                        | 2              |
| relation | `association-to-proven-causation` | `has/have been associated with / linked to / correlated with`                                                                                                                                                        | `has/have been shown to cause`                                                                  | 2              |
| relation | `associated-to-caused-by`         | `associated with`, `linked to/with`, `related to` after an outcome noun (`deaths related to X`)                                                                                                                      | `caused by`                                                                                     | 2              |
| relation | `help-to-direct-effect`           | `help(s) (to) VERB` for a listed effect verb (`prevent`, `reduce`, `protect`, …)                                                                                                                                     | `VERB(s)`; rejected: `not_association_to_causation`                                             | 2              |
| relation | `treatment-to-cure`               | `to/can/may/might/could/will/help(s) treat`                                                                                                                                                                          | `… cure`; rejected: `not_association_to_causation`                                              | 2              |
| relation | `risk-increase-to-causation`      | `increase(s/d)/raise(s/d) the risk/chance/likelihood/odds of`                                                                                                                                                        | `cause(s/d)`                                                                                    | 2              |
| relation | `risk-reduction-to-prevention`    | `reduce(s/d)/lower(s/ed)/decrease(s/d) the risk/chance/likelihood/odds of`                                                                                                                                           | `prevent(s/ed)`                                                                                 | 2              |
| relation | `risk-factor-to-cause`            | `a risk factor for`, `risk factors for`                                                                                                                                                                              | `a cause of`, `causes of`                                                                       | 2              |
| relation | `contribution-to-causation`       | `contribute(s/d) to` (not before an `-ing` word)                                                                                                                                                                     | `cause(s/d)`                                                                                    | 1              |
| modality | `recommendation-to-obligation`    | `is/are recommended`, `recommend(s)` (not before `no`, `not`, `against`)                                                                                                                                             | `is/are required`, `require(s)`                                                                 | 2              |
| modality | `advice-to-obligation`            | `should`, `ought to` (not in a `whether`/`if` sentence, not `should be noted/mentioned/…`)                                                                                                                           | `must`                                                                                          | 2              |
| relation | `influence-to-determination`      | `can/may/could/…/that/which/it influence(s)` (a verb, not before a comma)                                                                                                                                            | `… determine(s)`                                                                                | 2              |
| relation | `partial-to-sole-cause`           | `partly/partially/in part/largely` before `due to`, `because`, `caused by`, …                                                                                                                                        | deleted                                                                                         | 2              |
| modality | `possibility-to-certainty`        | `may`, `might`, `could` (not `… not`, not `… have`; not `could` in a past-tense sentence or before `be …ed`)                                                                                                         | `will`                                                                                          | 2              |
| modality | `hedge-adverb-to-certainty`       | `possibly`, `potentially`, `perhaps`, `probably`, `will/would likely`                                                                                                                                                | `definitely` / `certainly`                                                                      | 2              |
| modality | `likelihood-to-certainty`         | `is/are/was/were (very/highly/more) likely to`                                                                                                                                                                       | `… certain to`                                                                                  | 2              |
| modality | `forecast-to-certainty`           | `is/are expected/projected/predicted/forecast/planned/poised/anticipated/on track to` (not `set`/`scheduled`/`slated to`: an arranged future that `will` restates)                                                   | `will`                                                                                          | 2              |
| modality | `suggestion-to-proof`             | `suggest(s/ed) that`, `indicate(s/d) that`                                                                                                                                                                           | `prove(s/d) that`                                                                               | 2              |
| modality | `belief-to-knowledge`             | `is/are/was/were thought/believed/considered/said/presumed/suspected to`                                                                                                                                             | `… known to`                                                                                    | 2              |
| modality | `frequency-to-universality`       | `sometimes`, `often`, `frequently`, `usually`, `generally`, `typically`, `commonly` (not before `known as`, `called`, …)                                                                                             | `always`; rejected: `frequency_not_modality`                                                    | 2              |
| scope    | `quantifier-to-universal`         | `some`, `many`, `several`, `most` before `of` or a plural noun (not `times`, `years`, …; not after `is/are/was/were`, `as`, `how`, `so`, `too`; not before `N, including`/`such as`; not with `others` after it)     | `all`                                                                                           | 3 / 2 / 2 / 1  |
| scope    | `majority-to-universal`           | `the/a majority of`                                                                                                                                                                                                  | `all of`                                                                                        | 1              |
| scope    | `mainly-to-only`                  | `mainly`, `primarily`, `chiefly` / `mostly`, `largely`, `predominantly`                                                                                                                                              | `only` / `entirely` (`only` after a modal: `will mostly come` → `will only come`)               | 2              |
| scope    | `some-cases-to-all-cases`         | `in some/many/most cases`                                                                                                                                                                                            | `in all cases`                                                                                  | 2              |
| scope    | `population-to-general`           | `in/among/for` + a study population (`children`, `women`, `mice`, `patients with X`, …)                                                                                                                              | deleted; rejected: `qualifier_deleted`                                                          | 2 (animals: 3) |
| scope    | `jurisdiction-to-general`         | `in/across/throughout` + a named jurisdiction (`the United States`, `the UK`, `California`, …), not in a list, not right after a verb or a number (an event's place or a count's, not a scope)                       | deleted; rejected: `qualifier_deleted`                                                          | 2              |
| temporal | `as-of-to-current`                | `as of [month] [day,] year`, `as of the year census/survey/estimates/figures/data`, in a sentence without `was/were/had/did/became/remained`, `today/currently/now/to date/so far` or a present perfect (`has been`) | `Currently` opening the sentence; deleted elsewhere (the undated present)                       | 2              |
| temporal | `past-state-to-present`           | `was/were the` + superlative or office (`largest`, `capital`, `president`, …), in a sentence with no date or time phrase                                                                                             | `is/are the …`                                                                                  | 2              |
| temporal | `past-count-to-present`           | `had a population of`, `had N employees/members/residents/…` (not in a dated attribution frame: `According to the 2010 census`)                                                                                      | `has …`                                                                                         | 2              |
| temporal | `past-ranking-to-present`         | `was/were ranked/rated/listed` (not `named`/`voted`: an event, which `is named` does not make current), in a sentence with no date or time phrase                                                                    | `is/are …`                                                                                      | 2              |
| temporal | `since-date-to-timeless`          | `since [month] [day,] year` ending a clause, in a sentence with `has`/`have`                                                                                                                                         | `for all time`; rejected: `unnatural_raise`                                                     | 1              |
| temporal | `so-far-to-undated`               | `so far`, `to date`, `as of this/last spring/…/year` closing a clause, in a present-tense sentence (`is/are/has/have/remains/…`) without `was/were/had/did/will/would/yet`                                           | deleted (the undated present)                                                                   | 2              |
| temporal | `current-to-timeless`             | `currently`, `at present`, `presently`, `is/are now` (not `what is now`)                                                                                                                                             | `always`; rejected: `unnatural_raise`                                                           | 1              |
| numeric  | `approximation-to-exact`          | `about`, `approximately`, `around`, `roughly`, `circa`, `close to`, `(an) estimated`, `some`, `nearly`, `almost` + number                                                                                            | deleted (exact point; `in` before a bare year)                                                  | 1              |
| numeric  | `bound-to-exact`                  | `more/less/fewer than`, `over`, `under`, `at least`, `at most`, `up to`, `upwards of` + number                                                                                                                       | deleted; rejected: `bound_deletion_only`                                                        | 2              |
| numeric  | `range-to-endpoint`               | `N to/–M` with N < M (not a year range, a date range or a score, no `from`/`between` just before)                                                                                                                    | `M` (range becomes endpoint); rejected: `range_cut`                                             | 2              |

A limiter right after a negation (`not`, `no`, `never`, `n't`, `without`) is not rewritten.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass

from eviscope.core.tables import markdown_table
from eviscope.suites.forcebench.licensing import (
    APPROX,
    Licensing,
    anchored,
    at_level,
    bare_number,
    endpoint,
    following_noun,
    governed,
    limited_number,
    marker,
    never,
    number_after,
    number_key,
    phrase,
    raised_marker,
    same_bound,
    same_jurisdiction,
    same_range,
    same_year,
    universal_before_noun,
)

__all__ = ["RULES", "Rule", "rules_table"]


@dataclass(frozen=True)
class Rule:
    """One force-raising rewrite: ``pattern`` finds the limiter, ``replace`` gives its stronger form."""

    axis: str
    name: str
    pattern: re.Pattern[str]
    replace: Callable[[re.Match[str]], str]
    severity: int | Callable[[re.Match[str]], int]
    """A constant, or computed from the match (``some`` counts more than ``most``)."""
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
    _: KW_ONLY
    licensing: Licensing
    """When a cited span warrants the limiter (``calibrated``) and the raised form (``raised``)."""
    limiter: str
    """The limiter in the evidence, as the table of rules states it (Markdown)."""
    raised_form: str
    """The raised form, as the table of rules states it (Markdown)."""
    severity_doc: str = ""
    """The severity column of the table, for a rule whose severity depends on the match."""

    def severity_of(self, m: re.Match[str]) -> int:
        """The severity of a draft from match ``m``."""
        return self.severity if isinstance(self.severity, int) else self.severity(m)

    def table_row(self) -> list[str]:
        """The rule's row of :func:`rules_table`."""
        raised = self.raised_form + (f"; rejected: `{self.reject}`" if self.reject else "")
        return [self.axis, f"`{self.name}`", self.limiter, raised, self.severity_doc or str(self.severity)]


def _pick(table: dict[str, str], group: int = 1) -> Callable[[re.Match[str]], str]:
    return lambda m: table[m.group(group).lower()]


def _const(text: str) -> Callable[[re.Match[str]], str]:
    return lambda m: text


def _sub(template: str) -> Callable[[re.Match[str]], str]:
    return lambda m: m.expand(template)


_DETERMINE = {
    "influences": "determines",
    "influence": "determine",
    "affects": "determines",
    "affect": "determine",
}
_CAUSE = {"is": "causes", "are": "cause", "was": "caused", "were": "caused"}
_DETERMINED = {"is": "determines", "are": "determine", "was": "determined", "were": "determined"}
_DEGREE_AHEAD = re.compile(
    r" (?:the|a|its|their) (?:degree|extent|level|amount|rate|proportion|severity|intensity) of\b"
)
"""An association with a degree (``is correlated with the degree of binocular vision``): causing a
degree is no English, determining one is."""
_DATED_FRAME = re.compile(
    r"\b(?:according to|at|in|as of|per|by) the (?:19|20)\d\d (?:census|survey|estimates?|count|report|data|figures)\b"
    r"|\baccording to (?:\w+ ){0,4}(?:19|20)\d\d\b"
    r"|\bIn (?:19|20)\d\d,? (?:[\w-]+ ){1,8}(?:reported|estimated|counted|recorded|found|showed|stated)\b",
    re.I,
)
"""An attribution frame dated in the past (``According to the 2010 census``, ``In 2010, … reported``):
inside it a present tense says no more than the past (a past count is not raised there; a past state
or ranking is never raised in a sentence with a year)."""
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
_MODAL_BEHIND = re.compile(r"\b(?:will|would|can|could|may|might|must|should|shall|to) $", re.I)
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


def _third_person(verb: str) -> str:
    """``reduce`` gives ``reduces``, ``carry`` gives ``carries``, ``fix`` gives ``fixes``."""
    if verb.endswith("y") and verb[-2:-1] not in tuple("aeiou"):
        return verb[:-1] + "ies"
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    return verb + "s"


_CAUSAL = r"\bcaus(?:e|es|ed|ing)\b|\bleads? to\b|\bresults? in\b|\bresponsible for\b"
_ASSOCIATION = (
    r"\bassociat\w*|\blinked\b|\blinks?\b|\bcorrelat\w*|\brelated to\b|\brelationship\b|\bconnected (?:to|with)\b"
    r"|\btied to\b|\bconnection\b"
)
_HEDGE = r"\b(?:may|might|could|can|possibl\w*|potential\w*|perhaps|probabl\w*|likely|suggest\w*)\b"
_CERTAIN = r"\b(?:will(?! not\b)|definitely|certainly|always|guarantee[sd]?|undoubtedly|invariably)\b"
_ADVICE = r"\b(?:recommend\w*|advis\w*|suggest\w*|should|encourag\w*|urged?)\b"
_OBLIGATION = r"\b(?:requir\w*|must|mandatory|obligat\w*|compulsory)\b"


_CHANGE_VERB = {
    **dict.fromkeys(("increased", "higher", "greater", "more"), "increase"),
    **dict.fromkeys(("reduced", "lower", "decreased", "less", "fewer"), "reduce"),
}
"""The causal verb a person writes for an association with a change (``associated with higher
mortality`` → ``increases mortality``)."""


RULES: tuple[Rule, ...] = (
    Rule(
        "relation",
        "association-to-causation",
        re.compile(
            r"\b(is|are|was|were) (?:(?:strongly|significantly|positively|closely|independently) |(also |often ))?"
            r"(?:associated with|linked to|linked with|correlated with)\b"
        ),
        lambda m: (
            (m.group(2) or "")
            + (_DETERMINED if _DEGREE_AHEAD.match(m.string, m.end()) else _CAUSE)[m.group(1)]
        ),
        2,
        "an association, not causation",
        licensing=Licensing(marker(_ASSOCIATION), raised_marker(_CAUSAL + r"|\bdetermin\w*")),
        limiter="`is/are/was/were associated with`, `linked to/with`, `correlated with`",
        raised_form="`causes/cause/caused` (`also`/`often` kept); `determines` before `the degree/extent/level/… of`",
    ),
    Rule(
        "relation",
        "associated-change-to-effect",
        re.compile(
            r"\b(is|are) (?:(?:strongly|significantly|independently) )?(?:associated with|linked to|linked with) "
            r"(increased|higher|greater|more|reduced|lower|decreased|less|fewer)\b"
        ),
        lambda m: _CHANGE_VERB[m.group(2).lower()] + ("s" if m.group(1) == "is" else ""),
        2,
        "an association with a change, not the change's cause",
        licensing=Licensing(
            marker(_ASSOCIATION), raised_marker(_CAUSAL + r"|\b(?:increas|reduc|rais|lower)(?:es|ed)\b")
        ),
        limiter="`is/are associated with / linked to` + `increased/higher/greater/more` or `reduced/lower/decreased/less/fewer`",
        raised_form="`increase(s)` / `reduce(s)` (a person's causal verb for the same change)",
    ),
    Rule(
        "relation",
        "association-to-proven-causation",
        re.compile(
            r"\b(has|have) been (?:(?:strongly|consistently|repeatedly) )?"
            r"(?:associated with|linked to|linked with|correlated with)\b"
        ),
        _sub(r"\1 been shown to cause"),
        2,
        "an association, not causation",
        licensing=Licensing(marker(_ASSOCIATION), raised_marker(_CAUSAL)),
        limiter="`has/have been associated with / linked to / correlated with`",
        raised_form="`has/have been shown to cause`",
    ),
    Rule(
        "relation",
        "associated-to-caused-by",
        re.compile(
            rf"\b({_OUTCOMES}) (?:associated with|linked to|linked with)\b"
            r"|\b(deaths|injuries|illnesses|complications|hospitalizations|fatalities) related to\b"
        ),
        lambda m: f"{m.group(1) or m.group(2)} caused by",
        2,
        "an association, not causation",
        licensing=Licensing(marker(_ASSOCIATION), raised_marker(_CAUSAL)),
        limiter="`associated with`, `linked to/with`, `related to` after an outcome noun (`deaths related to X`)",
        raised_form="`caused by`",
    ),
    Rule(
        "relation",
        "help-to-direct-effect",
        re.compile(rf"(?<!\bthe )(?<!\bwith )(?<!\ba )\b(helps|help) (?:to )?({_HELPED_VERBS})\b"),
        lambda m: _third_person(m.group(2)) if m.group(1) == "helps" else m.group(2),
        2,
        "a contributing help, not the direct effect",
        reject="not_association_to_causation",
        licensing=Licensing(anchored(r"\bhelp(?:s|ed|ing)?\b", lambda m: m.group(2)), never),
        limiter="`help(s) (to) VERB` for a listed effect verb (`prevent`, `reduce`, `protect`, …)",
        raised_form="`VERB(s)`",
    ),
    Rule(
        "relation",
        "treatment-to-cure",
        re.compile(r"\b(to|can|may|might|could|will|help|helps) treat\b"),
        _sub(r"\1 cure"),
        2,
        "a treatment, not a cure",
        reject="not_association_to_causation",
        licensing=Licensing(marker(r"\btreat\w*"), raised_marker(r"\bcur(?:e|es|ed|ing)\b")),
        limiter="`to/can/may/might/could/will/help(s) treat`",
        raised_form="`… cure`",
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
        2,
        "a raised risk, not causation",
        licensing=Licensing(
            marker(
                r"\b(?:increas|rais|elevat|higher|greater)\w* (?:\w+ ){0,3}(?:risk|chance|likelihood|odds)\b"
            ),
            raised_marker(_CAUSAL),
        ),
        limiter="`increase(s/d)/raise(s/d) the risk/chance/likelihood/odds of`",
        raised_form="`cause(s/d)`",
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
        2,
        "a lower risk, not prevention",
        licensing=Licensing(
            marker(
                r"\b(?:reduc|lower|decreas|less|smaller)\w* (?:\w+ ){0,3}(?:risk|chance|likelihood|odds)\b"
            ),
            raised_marker(r"\bprevent\w*"),
        ),
        limiter="`reduce(s/d)/lower(s/ed)/decrease(s/d) the risk/chance/likelihood/odds of`",
        raised_form="`prevent(s/ed)`",
    ),
    Rule(
        "relation",
        "risk-factor-to-cause",
        re.compile(r"\b(a risk factor|risk factors) for\b"),
        _pick({"a risk factor": "a cause of", "risk factors": "causes of"}),
        2,
        "a risk factor, not a cause",
        licensing=Licensing(marker(r"\brisk factors?\b"), raised_marker(_CAUSAL)),
        limiter="`a risk factor for`, `risk factors for`",
        raised_form="`a cause of`, `causes of`",
    ),
    Rule(
        "relation",
        "contribution-to-causation",
        re.compile(r"\b(contribute|contributes|contributed) to\b(?! \w+ing\b)"),
        _pick({"contribute": "cause", "contributes": "causes", "contributed": "caused"}),
        1,
        "a contribution, not the cause",
        licensing=Licensing(
            marker(r"\bcontribut\w*|\bplays? (?:a|an) (?:\w+ )?role\b"), raised_marker(_CAUSAL)
        ),
        limiter="`contribute(s/d) to` (not before an `-ing` word)",
        raised_form="`cause(s/d)`",
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
        2,
        "a recommendation, not an obligation",
        licensing=Licensing(marker(_ADVICE), raised_marker(_OBLIGATION)),
        limiter="`is/are recommended`, `recommend(s)` (not before `no`, `not`, `against`)",
        raised_form="`is/are required`, `require(s)`",
    ),
    Rule(
        "modality",
        "advice-to-obligation",
        re.compile(
            r"\b(?:should|ought to)\b(?! not\b| have\b| also\b)"
            r"(?!(?: be)? (?:noted|mentioned|said|remembered|emphasi[sz]ed|stressed|pointed out|kept in mind)\b)"
        ),
        _const("must"),
        2,
        "advice, not an obligation",
        veto=re.compile(r"\b(?:whether|if)\b", re.I),
        licensing=Licensing(marker(_ADVICE), raised_marker(_OBLIGATION)),
        limiter="`should`, `ought to` (not in a `whether`/`if` sentence, not `should be noted/mentioned/…`)",
        raised_form="`must`",
    ),
    Rule(
        "relation",
        "influence-to-determination",
        re.compile(
            r"\b(can|may|could|might|will|would|to|does|do|did|also|that|which|who|it|strongly|directly"
            r"|greatly|largely) (influences|influence)\b(?![,;])"
        ),
        lambda m: m.group(1) + " " + _DETERMINE[m.group(2).lower()],
        2,
        "an influence, not the determining factor",
        licensing=Licensing(
            marker(r"\b(?:influenc\w*|affect\w*|impact\w*|shap(?:e|es|ed|ing)|effects?)\b"),
            raised_marker(r"\b(?:determin\w*|dictat\w*|decid\w*|control\w*)\b|" + _CAUSAL),
        ),
        limiter="`can/may/could/…/that/which/it influence(s)` (a verb, not before a comma)",
        raised_form="`… determine(s)`",
    ),
    Rule(
        "relation",
        "partial-to-sole-cause",
        re.compile(
            r"\b(?:partly|partially|in part|at least partly|largely) (?=due to\b|because\b|caused by\b|"
            r"responsible for\b|explained by\b|attributed to\b|the result of\b)"
        ),
        _const(""),
        2,
        "a partial cause, not the whole cause",
        licensing=Licensing(
            marker(r"\b(?:partly|partially|in part|largely|one of|contribut\w*|factors?)\b"),
            raised_marker(r"\b(?:solely|entirely|only|wholly)\b"),
        ),
        limiter="`partly/partially/in part/largely` before `due to`, `because`, `caused by`, …",
        raised_form="deleted",
    ),
    Rule(
        "modality",
        "possibility-to-certainty",
        re.compile(
            r"\b(?:may|might)\b(?! not\b| have\b| never\b)|\bcould\b(?! not\b| have\b| never\b| be \w+ed\b)"
        ),
        _const("will"),
        2,
        "a possibility, not a certainty",
        accept=lambda m: m.group(0).lower() != "could" or not _PAST.search(m.string),
        licensing=Licensing(marker(_HEDGE), raised_marker(_CERTAIN)),
        limiter="`may`, `might`, `could` (not `… not`, not `… have`; not `could` in a past-tense sentence or before `be …ed`)",
        raised_form="`will`",
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
        2,
        "a hedged statement, not a certain one",
        licensing=Licensing(marker(_HEDGE), raised_marker(_CERTAIN)),
        limiter="`possibly`, `potentially`, `perhaps`, `probably`, `will/would likely`",
        raised_form="`definitely` / `certainly`",
    ),
    Rule(
        "modality",
        "likelihood-to-certainty",
        re.compile(r"\b(is|are|was|were) (?:(?:very|highly|more|most) )?likely to\b"),
        _sub(r"\1 certain to"),
        2,
        "a likelihood, not a certainty",
        licensing=Licensing(
            marker(r"\b(?:likely|probabl\w*|tends? to|often|usually|generally|commonly|frequently)\b"),
            raised_marker(r"\bcertain\b|" + _CERTAIN),
        ),
        limiter="`is/are/was/were (very/highly/more) likely to`",
        raised_form="`… certain to`",
    ),
    Rule(
        "modality",
        "forecast-to-certainty",
        re.compile(
            r"\b(?:is|are) (?:expected|projected|predicted|forecast|planned|poised|anticipated|on track) to\b"
        ),
        _const("will"),
        2,
        "a forecast, not a certain future",
        licensing=Licensing(
            marker(
                r"\b(?:expected|projected|predicted|forecast|anticipated|planned|poised"
                r"|on track|estimated to|likely to|aims? to|plans? to)\b"
            ),
            raised_marker(r"\bwill\b|\bshall\b|\b(?:set|scheduled|slated) to\b"),
        ),
        limiter="`is/are expected/projected/predicted/forecast/planned/poised/anticipated/on track to` (not `set`/`scheduled`/`slated to`: an arranged future that `will` restates)",
        raised_form="`will`",
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
        2,
        "a suggestion, not proof",
        licensing=Licensing(
            marker(r"\b(?:suggest\w*|indicat\w*|impl(?:y|ies|ied)|points? to|hint\w*)\b|" + _HEDGE),
            raised_marker(r"\b(?:prov(?:e|es|ed|en)|proof|establish\w*|confirm\w*|demonstrat\w*)\b"),
        ),
        limiter="`suggest(s/ed) that`, `indicate(s/d) that`",
        raised_form="`prove(s/d) that`",
    ),
    Rule(
        "modality",
        "belief-to-knowledge",
        re.compile(
            r"\b(is|are|was|were) (?:widely |generally |commonly )?(?:thought|believed|considered|said|"
            r"presumed|suspected) to\b"
        ),
        _sub(r"\1 known to"),
        2,
        "a belief, not established knowledge",
        licensing=Licensing(
            marker(
                r"\b(?:thought|believed|considered|said|presumed|suspected|regarded|seen as|viewed as|reputed"
                r"|claimed|alleged|according to)\b"
            ),
            raised_marker(r"\bknown to\b|\bestablished\b|\bproven\b"),
        ),
        limiter="`is/are/was/were thought/believed/considered/said/presumed/suspected to`",
        raised_form="`… known to`",
    ),
    Rule(
        "modality",
        "frequency-to-universality",
        re.compile(
            r"\b(?:sometimes|often|frequently|usually|generally|typically|commonly)\b"
            r"(?! (?:known as|called|referred to as|named|described as|cited as|used to refer)\b)"
        ),
        _const("always"),
        2,
        "a tendency, not something that always holds",
        reject="frequency_not_modality",
        licensing=Licensing(
            at_level("frequency", governed), raised_marker(r"\b(?:always|invariably|without exception)\b")
        ),
        limiter="`sometimes`, `often`, `frequently`, `usually`, `generally`, `typically`, `commonly` (not before `known as`, `called`, …)",
        raised_form="`always`",
    ),
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
        severity_doc="3 / 2 / 2 / 1",
        licensing=Licensing(at_level("quantity", following_noun), universal_before_noun),
        limiter="`some`, `many`, `several`, `most` before `of` or a plural noun (not `times`, `years`, …; not after `is/are/was/were`, `as`, `how`, `so`, `too`; not before `N, including`/`such as`; not with `others` after it)",
        raised_form="`all`",
    ),
    Rule(
        "scope",
        "majority-to-universal",
        re.compile(r"\b(?:the|a) (?:vast )?majority of\b"),
        _const("all of"),
        1,
        "a majority, not all",
        licensing=Licensing(marker(r"\bmajority\b|\bmost\b"), universal_before_noun),
        limiter="`the/a majority of`",
        raised_form="`all of`",
    ),
    Rule(
        "scope",
        "mainly-to-only",
        re.compile(r"\b(mainly|mostly|primarily|largely|predominantly|chiefly)\b(?! of\b)"),
        lambda m: (
            "only"
            if m.group(1).lower() in {"mainly", "primarily", "chiefly"}
            or _MODAL_BEHIND.search(m.string, 0, m.start())
            else "entirely"
        ),
        2,
        "mostly, not exclusively",
        licensing=Licensing(
            marker(
                r"\b(?:mainly|mostly|primarily|largely|predominantly|chiefly|most|majority|usually|generally)\b"
            ),
            raised_marker(r"\b(?:only|solely|entirely|exclusively|wholly)\b"),
        ),
        limiter="`mainly`, `primarily`, `chiefly` / `mostly`, `largely`, `predominantly`",
        raised_form="`only` / `entirely` (`only` after a modal: `will mostly come` → `will only come`)",
    ),
    Rule(
        "scope",
        "some-cases-to-all-cases",
        re.compile(r"\bin (?:some|many|most|certain) cases\b"),
        _const("in all cases"),
        2,
        "some cases, not all cases",
        licensing=Licensing(
            marker(
                r"\bin (?:some|many|most|certain) cases\b|\bsometimes\b|\boften\b|\boccasionally\b|\bmay\b|\bcan\b"
            ),
            raised_marker(r"\bin all cases\b|\balways\b"),
        ),
        limiter="`in some/many/most cases`",
        raised_form="`in all cases`",
    ),
    Rule(
        "scope",
        "population-to-general",
        re.compile(rf",? (?:especially |particularly |mainly )?(?:in|among|for) (?:({_POPULATIONS}))\b"),
        _const(""),
        lambda m: 3 if m.group(1) in {"mice", "rats", "animals", "primates", "monkeys", "dogs"} else 2,
        "a specific study population, not everyone",
        reject="qualifier_deleted",
        severity_doc="2 (animals: 3)",
        licensing=Licensing(
            phrase(1), raised_marker(r"\b(?:everyone|everybody|all ages|regardless of age|all people)\b")
        ),
        limiter="`in/among/for` + a study population (`children`, `women`, `mice`, `patients with X`, …)",
        raised_form="deleted",
    ),
    Rule(
        "scope",
        "jurisdiction-to-general",
        re.compile(rf" (?:in|across|throughout) (?:{_JURISDICTIONS})\b(?! [A-Z]| and\b| or\b|,? and\b|,)"),
        _const(""),
        2,
        "one jurisdiction, not everywhere",
        reject="qualifier_deleted",
        veto_before=re.compile(
            r"\b(?:\w+ed|\w+ing|was|were|is|are|be|been|began|begun|held|born|made|built|sold|grown|known|found"
            r"|took|won|lived|died|released)$|\d"
        ),
        licensing=Licensing(
            same_jurisdiction,
            raised_marker(
                r"\b(?:worldwide|globally|everywhere|around the world|in the world|world's|all countries|internationally)\b"
            ),
        ),
        limiter="`in/across/throughout` + a named jurisdiction (`the United States`, `the UK`, `California`, …), not in a list, not right after a verb or a number (an event's place or a count's, not a scope)",
        raised_form="deleted",
    ),
    Rule(
        "temporal",
        "as-of-to-current",
        re.compile(
            rf"(?:^|,? )[Aa]s of (?:(?:early |mid-|late |the end of )?(?:{_MONTHS}) )?(?:\d{{1,2}}(?:st|nd|rd|th)?,? )?"
            rf"(?:(?:{_MONTHS}) )?(?:19|20)\d\d\b"
            r"|(?:^|,? )[Aa]s of the (?:19|20)\d\d (?:census|survey|estimates?|figures|data)\b"
        ),
        lambda m: "Currently" if m.start() == 0 else "",
        2,
        "a state as of a given date, not the current state",
        veto=re.compile(
            r"\b(?:was|were|had|did|became|remained|today|currently|now|at present|presently|to date|so far)\b"
            r"|\b(?:has|have)(?: not| never| also| only| long)? (?:been|\w+ed|\w+en)\b",
            re.I,
        ),
        licensing=Licensing(same_year, raised_marker(r"\b(?:currently|now|today|at present|presently)\b")),
        limiter="`as of [month] [day,] year`, `as of the year census/survey/estimates/figures/data`, in a sentence without `was/were/had/did/became/remained`, `today/currently/now/to date/so far` or a present perfect (`has been`)",
        raised_form="`Currently` opening the sentence; deleted elsewhere (the undated present)",
    ),
    Rule(
        "temporal",
        "past-state-to-present",
        re.compile(rf"\b(was|were) (the {_OFFICES})\b"),
        lambda m: {"was": "is", "were": "are"}[m.group(1)] + " " + m.group(2),
        2,
        "a past state, not the current one",
        veto=re.compile(
            r"\b(?:1[5-9]\d\d|20\d\d|century|centuries|period|era|until|from|during|ago|years|then|"
            r"at the time|once|formerly|former|previously|later|when|after|before|age)\b",
            re.I,
        ),
        licensing=Licensing(
            lambda span, m: bool(re.search(re.escape(m.group(0)), span, re.I)),
            lambda span, m: bool(re.search(rf"\b(?:is|are) {re.escape(m.group(2))}\b", span, re.I)),
        ),
        limiter="`was/were the` + superlative or office (`largest`, `capital`, `president`, …), in a sentence with no date or time phrase",
        raised_form="`is/are the …`",
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
        2,
        "a count at a past date, not the current count",
        veto=_DATED_FRAME,
        licensing=Licensing(
            lambda span, m: bool(re.search(re.escape(m.group(0)), span, re.I)),
            lambda span, m: bool(re.search(rf"\bhas {re.escape(m.group(1))}", span, re.I)),
        ),
        limiter="`had a population of`, `had N employees/members/residents/…` (not in a dated attribution frame: `According to the 2010 census`)",
        raised_form="`has …`",
    ),
    Rule(
        "temporal",
        "past-ranking-to-present",
        re.compile(r"\b(was|were) (ranked|rated|listed)\b(?! after\b| for\b| in hono| by\b)"),
        lambda m: {"was": "is", "were": "are"}[m.group(1)] + " " + m.group(2),
        2,
        "a ranking at a past date, not the current one",
        veto=re.compile(
            r"\b(?:1[5-9]\d\d|20\d\d|century|until|from|during|ago|then|at the time|once|when)\b", re.I
        ),
        licensing=Licensing(
            lambda span, m: bool(re.search(re.escape(m.group(0)), span, re.I)),
            lambda span, m: bool(re.search(rf"\b(?:is|are) {re.escape(m.group(2))}\b", span, re.I)),
        ),
        limiter="`was/were ranked/rated/listed` (not `named`/`voted`: an event, which `is named` does not make current), in a sentence with no date or time phrase",
        raised_form="`is/are …`",
    ),
    Rule(
        "temporal",
        "since-date-to-timeless",
        re.compile(
            rf"\bsince (?:(?:early |mid-|late )?(?:{_MONTHS}) )?(?:\d{{1,2}},? )?(?:1[5-9]|20)\d\d\b(?=\s*[.;,]|$)"
        ),
        _const("for all time"),
        1,
        "a state since a given date, not a timeless one",
        veto=re.compile(r"^(?!.*\b(?:has|have)\b)"),
        reject="unnatural_raise",
        licensing=Licensing(same_year, raised_marker(r"\b(?:always|forever|for all time)\b")),
        limiter="`since [month] [day,] year` ending a clause, in a sentence with `has`/`have`",
        raised_form="`for all time`",
    ),
    Rule(
        "temporal",
        "so-far-to-undated",
        re.compile(
            r",? (?:so far|to date|as of (?:this|last) (?:spring|summer|autumn|fall|winter|week|month|year))(?=[,.;]| and\b| but\b)"
        ),
        _const(""),
        2,
        "a state up to a given time, not a settled one",
        veto=re.compile(
            r"\b(?:was|were|had|did|will|would|yet)\b"
            r"|^(?!.*\b(?:is|are|has|have|remains?|makes? up|holds?|stands? at|totals?)\b)",
            re.I,
        ),
        licensing=Licensing(
            marker(
                r"\b(?:so far|to date|as of|through|until|by (?:the end of )?(?:{_MONTHS})|up to|initial|early|preliminary|(?:19|20)\d\d)\b".replace(
                    "{_MONTHS}", _MONTHS
                )
            ),
            raised_marker(r"\b(?:always|permanently|consistently|in general|generally)\b"),
        ),
        limiter="`so far`, `to date`, `as of this/last spring/…/year` closing a clause, in a present-tense sentence (`is/are/has/have/remains/…`) without `was/were/had/did/will/would/yet`",
        raised_form="deleted (the undated present)",
    ),
    Rule(
        "temporal",
        "current-to-timeless",
        re.compile(
            r"\b(?:currently|at present|presently|(?<=\bis )(?<!what is )now|(?<=\bare )(?<!what are )now)\b"
        ),
        _const("always"),
        1,
        "the current state, not a timeless one",
        reject="unnatural_raise",
        licensing=Licensing(
            marker(r"\b(?:currently|now|at present|presently|today|as of|at the moment|recently)\b"),
            raised_marker(r"\b(?:always|forever|permanently)\b"),
        ),
        limiter="`currently`, `at present`, `presently`, `is/are now` (not `what is now`)",
        raised_form="`always`",
    ),
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
        1,
        "an approximate quantity, not an exact one",
        licensing=Licensing(limited_number(APPROX), bare_number(number_after)),
        limiter="`about`, `approximately`, `around`, `roughly`, `circa`, `close to`, `(an) estimated`, `some`, `nearly`, `almost` + number",
        raised_form="deleted (exact point; `in` before a bare year)",
    ),
    Rule(
        "numeric",
        "bound-to-exact",
        re.compile(
            rf"\b(?:more than|less than|fewer than|over|under|at least|at most|up to|upwards of)"
            rf" (?={_NUMBER})"
        ),
        _const(""),
        2,
        "a bound, not an exact quantity",
        reject="bound_deletion_only",
        licensing=Licensing(same_bound, bare_number(number_after)),
        limiter="`more/less/fewer than`, `over`, `under`, `at least`, `at most`, `up to`, `upwards of` + number",
        raised_form="deleted",
    ),
    Rule(
        "numeric",
        "range-to-endpoint",
        re.compile(
            rf"(?<!\bfrom )(?<!\bFrom )(?<!\bbetween )(?<![\d.,⁄/])(?!(?:19|20)\d\d\b)({_NUMBER})"
            rf"(?: ?(?:-|–|to) ?)(?!(?:19|20)\d\d\b)({_NUMBER})\b"
        ),
        lambda m: m.group(2),
        2,
        "a range, not a point value",
        veto_before=re.compile(rf"\b(?:between|from|[Bb]etween|[Ff]rom)\b|\b(?:{_MONTHS}) $"),
        accept=lambda m: float(number_key(m.group(1))) < float(number_key(m.group(2))),
        reject="range_cut",
        licensing=Licensing(same_range, bare_number(endpoint)),
        limiter="`N to/–M` with N < M (not a year range, a date range or a score, no `from`/`between` just before)",
        raised_form="`M` (range becomes endpoint)",
    ),
)
"""Every drafting rule, grouped by axis in canonical order."""


def rules_table() -> str:
    """The table of :data:`RULES` (axis, rule, limiter, raised form, severity) in Markdown, as the
    module docstring shows it."""
    header = ["axis", "rule", "limiter in the evidence", "raised form", "severity"]
    return markdown_table(header, [rule.table_row() for rule in RULES])
