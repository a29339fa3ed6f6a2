"""The rules of believability against the whole article (:mod:`~eviscope.builders.eviscope.believability`),
one declaration each, as ForceBench's drafting rules are (:mod:`eviscope.suites.forcebench.rules`).

A :class:`Rule` declares, in one place, its id, the class of failure it guards (``guards``: the prose
that ``build_report.json`` carries), its row of the dataset card (``doc``), the real items that a strict
whole-article read failed and that it now rejects (:class:`Failure`: the SQuAD id, answer, alternative
and the sentence of the article that rules it out) and made-up items of the same class
(:class:`MadeUp`): a read's failure is a class with several items, never a rule that only its own
item trips. The tests run every declared item, real and made up, through the rule, and the card's
list of rules and its table of counts are rendered from the declarations and a build report
(:func:`card_sections`), so the card and the code cannot drift.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from eviscope.suites.eviscope.squad_source import Paragraph, Question, Squad

__all__ = ["DECLARED", "Failure", "MadeUp", "Rule", "card_sections", "rules_table"]


@dataclass(frozen=True)
class Failure:
    """A real item a strict whole-article read did not believe, which the rule now rejects."""

    source_id: str
    """Its SQuAD question id."""
    answer: str
    alternative: str
    sentence: str
    """A part of the sentence of the article that rules the alternative out."""
    source: str = "squad-dev"
    """The question source (:data:`~eviscope.suites.eviscope.squad_source.QUESTION_SOURCES`) of the question."""
    at: str = ""
    """For a question-irrelevant edit (a value that is not the answer): the words around the value, which
    find its paragraph (in the question's article) and its place; empty where the value is the answer."""


FILLER = (
    "The coast is windy in winter. Fishing boats leave at dawn. Markets open on weekdays. The roads are "
    "narrow and steep. Rain falls often in autumn. Visitors come in summer. The hills are green in spring. "
    "Most houses are built of stone. The harbour freezes in hard winters. Bread is baked every morning."
)
"""The last paragraph of every made-up article: plain sentences that name nothing, so that the article's
names are not its topic (a name in a fifth of its sentences: :class:`~eviscope.builders.eviscope.believability.Article`)."""
_MARK = re.compile(r"\[\[(.+?)\]\]")


@dataclass(frozen=True)
class MadeUp:
    """A made-up item of a rule's class: an article whose paragraphs mark the answer ``[[…]]`` (once),
    the question, the answer's kind (``year``, ``date``, ``quantity``, ``person``) and the alternative
    that the rule rejects."""

    paragraphs: tuple[str, ...]
    question: str
    kind: str
    alternative: str

    def article(self) -> tuple[Squad, int, int, str]:
        """The made-up article as a one-article SQuAD file (with :data:`FILLER` last), and the answer's
        paragraph, offset and text."""
        texts, where = [], None
        for index, text in enumerate((*self.paragraphs, FILLER)):
            match = _MARK.search(text)
            if match:
                where = (index, match.start(), match[1])
            texts.append(_MARK.sub(r"\1", text))
        if where is None:
            raise ValueError(f"made-up item {self.question!r} marks no answer")
        paragraphs = [Paragraph("Made-up", text) for text in texts]
        question = Question("made-up", self.question, where[0], ((where[2], where[1]),))
        return Squad(paragraphs, [question], "made-up", "made-up"), *where


@dataclass(frozen=True)
class Rule:
    """A rule of believability: its id, the class of failure it guards, its card row, its real failing
    items and made-up ones of the same class."""

    name: str
    guards: str
    """What it rejects, as ``build_report.json`` states it."""
    doc: str
    """Its row of the card's list of rules (Markdown)."""
    failures: tuple[Failure, ...] = ()
    cases: tuple[MadeUp, ...] = field(default=())
    stricter: bool = False
    """Read by ``eviscope-xl`` only (:data:`~eviscope.builders.eviscope.believability.STRICTER_RULES`)."""


DECLARED: tuple[Rule, ...] = (
    Rule(
        "restated_in_article",
        "the article states the answer again, outside the passage, in a sentence on the same event (it holds the answer and shares at least two content words with the answer's sentence), so any alternative contradicts it",
        "the article states the answer again outside the passage, in a sentence on the same event (it holds the answer, or its year, and shares two content words with the answer's sentence besides the article's topic names): any alternative contradicts it (\"Doctor Who originally ran for 26 seasons on BBC One\")",
        failures=(
            Failure("56e05900231d4119001ac04d", "1888", "1880", "patented in May 1888"),
            Failure("5727f5622ca10214002d9a44", "26", "37", "ran for 26 seasons on BBC One"),
            Failure("5727c94bff5b5019007d954e", "1968", "1970", "On October 1, 1968, the governments"),
            Failure("5725e152271a42140099d2ce", "37", "38", "Launch Complex 39"),
            Failure("5726ed12708984140094d645", "1952", "1950", "Before the freeze ended in 1952"),
        ),
        cases=(
            MadeUp(
                (
                    "The Ferrow Bridge opened to traffic in [[1932]].",
                    "Crowds lined the river when the bridge opened to traffic in 1932.",
                ),
                "When did the Ferrow Bridge open to traffic?",
                "year",
                "1934",
            ),
            MadeUp(
                (
                    "The Arlen choir has [[48]] singers in its main ensemble.",
                    "Its main ensemble of 48 singers tours the coast each spring.",
                ),
                "How many singers are in the Arlen choir's main ensemble?",
                "quantity",
                "52",
            ),
        ),
    ),
    Rule(
        "date_order_passage",
        "the alternative year or date leaves its order to a date of the passage, the ends of short ranges ('1709–13' ends in 1713) included",
        'a year or date keeps its order (before, within, after) to every date of the passage, the ends of short ranges included ("1709–13" ends in 1713)',
        failures=(Failure("57265700dd62a815002e8212", "1720", "1710", "In 1709–13, a plague epidemic"),),
        cases=(
            MadeUp(
                ("A flood struck the valley in 1841. The mill was rebuilt in [[1846]], after the flood.",),
                "When was the mill rebuilt?",
                "year",
                "1838",
            ),
        ),
    ),
    Rule(
        "date_span_passage",
        "another sentence of the passage gives a span of years beside a year (a four-year term in three years, graduating in 1873), which the arithmetic may tie to the answer",
        'a year or date is not changed where another sentence of the passage gives a span of years beside a year ("He finished a four-year term in three years, graduating in 1873"), which the arithmetic may tie to it',
        failures=(),
        cases=(
            MadeUp(
                (
                    "She entered the academy in [[1871]]. She completed a four-year course in three years, graduating in 1874.",
                ),
                "When did she enter the academy?",
                "year",
                "1869",
            ),
        ),
    ),
    Rule(
        "date_order_article",
        "the alternative year or date crosses a date of a sentence of the article tied to it (one that names a name of the answer's sentence or of the question, or shares two content words with the answer's sentence)",
        'a year or date crosses no date of a sentence of the article tied to it, one that shares two content words with the answer\'s sentence, or three with another sentence of the passage, or names a name of the answer\'s sentence or of the question ("Luther", "Kublai", "Tesla"); a name in a fifth or more of the article\'s sentences (its topic: "Harvard", "Warsaw") ties only where it names a person, or where the answer\'s sentence names nothing else, so a biography keeps its whole timeline and a survey article only the sentences on the same people, places and works',
        failures=(
            Failure("56f852fba6d7ea1400e17571", "1523", "1516", "On 31 October 1517, Luther wrote"),
            Failure("5726f1ec708984140094d6a9", "2010", "2003", "The last work by Fowke"),
        ),
        cases=(
            MadeUp(
                (
                    "Orvel wrote his first treaty in [[1523]].",
                    "In 1517, Orvel posted his complaints on the gate.",
                ),
                "When did Orvel write his first treaty?",
                "year",
                "1516",
            ),
        ),
    ),
    Rule(
        "date_gap_passage",
        "the alternative year or date moves far from the passage's nearest dated event (past twice the answer's gap to it and two years more: 'Starting in 1894 … Soon after, … the fire of March 1895' cannot start in 1887)",
        "a year or date stays near the passage's nearest dated event (within twice the answer's gap to it and two years more: \"Starting in 1894 … Soon after, … the fire of March 1895\" cannot start in 1887)",
        failures=(
            Failure("57286b003acd2414000df9c3", "1264", "1255", "the former Jurchen capital"),
            Failure("56e0f32d231d4119001ac4c8", "1894", "1887", "Soon after, much of Tesla's"),
        ),
        cases=(
            MadeUp(
                (
                    "Starting in [[1894]], Verel studied the lamps. Soon after, a fire of March 1895 destroyed his laboratory.",
                ),
                "When did Verel start studying the lamps?",
                "year",
                "1887",
            ),
        ),
    ),
    Rule(
        "date_same_year_article",
        "a sentence of the article that names a name of the answer's sentence (not the article's topic) dates an event inside the answer's year that the alternative leaves out ('In December 1901, Marconi transmitted …' against Marconi's transmission moved to 1902)",
        "a year keeps every date inside it of a sentence that names a name of the answer's sentence other than the article's topic (\"In December 1901, Marconi transmitted …\")",
        failures=(Failure("56e0fc3f7aa994140058e879", "1901", "1902", "In December 1901, Marconi"),),
        cases=(
            MadeUp(
                (
                    "Marlow sent the first signal across the sea in [[1901]].",
                    "In December 1901, Marlow tested the receiver on the coast.",
                ),
                "When did Marlow send the first signal across the sea?",
                "year",
                "1902",
            ),
        ),
    ),
    Rule(
        "count_enumerated",
        "the passage enumerates what the count counts (First… Second… Lastly, or a next sentence that names two or more of the things counted), so another count contradicts the list",
        'a count of at most 20 that the passage goes on to enumerate ("First, … Second, … Lastly, …", or a next sentence naming two or more of the things counted) is not changed',
        failures=(
            Failure("56f8507fa6d7ea1400e1754b", "three", "five", "First, in choosing violence"),
            Failure("5727d88b4b864d1900163e5e", "three", "five", "the Busch-Reisinger Museum"),
        ),
        cases=(
            MadeUp(
                (
                    "The council gave [[three]] grounds for the ban. First, the costs were high. Second, the site was unsafe. Lastly, few people came.",
                ),
                "How many grounds did the council give?",
                "quantity",
                "five",
            ),
        ),
    ),
    Rule(
        "count_ordinal",
        "an ordinal of the passage or of a tied sentence continues or repeats the count (26 seasons and a planned 27th series), or the alternative crosses another ordinal of the passage",
        'a count that an ordinal of the passage or of a tied sentence continues or repeats (26 seasons, "a planned 27th series") is not changed, and an alternative crosses no other ordinal of the passage',
        failures=(),
        cases=(
            MadeUp(
                ("The show ran for [[26]] seasons on the network. A planned 27th season was cancelled.",),
                "How many seasons did the show run?",
                "quantity",
                "30",
            ),
        ),
    ),
    Rule(
        "count_order_same_noun",
        "the alternative count crosses another number of the passage or of a tied sentence that counts the same thing (a part above its total, a total below its parts), or leaves a count of the same thing that restates the answer within a tenth (232 and 235 affiliates)",
        'a count crosses no other number of the passage or of a tied sentence that counts the same thing (a part stays below its total, a total above its parts), and leaves none that restates it within a tenth (232 and "235 additional stations")',
        failures=(),
        cases=(
            MadeUp(
                (
                    "The network has [[232]] affiliated stations. It signed agreements with 235 affiliated stations later on.",
                ),
                "How many affiliated stations does the network have?",
                "quantity",
                "270",
            ),
        ),
    ),
    Rule(
        "count_part_of_total",
        "the count is the part or the total of an 'X of Y' ('39 of the 43 previous MVPs', 'Of Grainger Town's 450 buildings, 244 are listed'), which the passage or the article may go on to tell (the MVPs not introduced; 'most are listed')",
        'a count that is the part or the total of an "X of Y" ("39 of the 43 previous MVPs", "Of Grainger Town\'s 450 buildings, 244 are listed") is not changed',
        failures=(
            Failure("572671165951b619008f72ba", "244", "211", "Of Grainger Town's 450 buildings"),
            Failure("56d9c3a6dc89441400fdb7b4", "43", "42", "39 of the 43 previous"),
        ),
        cases=(
            MadeUp(
                ("Of the town's 450 buildings, [[244]] are listed.",),
                "How many of the town's buildings are listed?",
                "quantity",
                "211",
            ),
        ),
    ),
    Rule(
        "count_sum_in_passage",
        "the count adds up with other counts of the passage (public 540,800 and private 311,800 against primary 462,000 and secondary 390,000), so another count breaks the sum",
        "a count that adds up with other counts of the passage (within 1%) is not changed",
        failures=(Failure("570d44abb3d812140066d5ff", "540,800", "642,200", "More than 462,000 students"),),
        cases=(
            MadeUp(
                (
                    "There are [[540,800]] pupils in public schools and 311,800 in private schools. Some 462,000 attend primary schools and 390,000 attend secondary schools.",
                ),
                "How many pupils are in public schools?",
                "quantity",
                "642,200",
            ),
        ),
    ),
    Rule(
        "count_is_label",
        "the number names rather than counts: the question asks 'what pad' and the passage writes 'pad 37', one of a set the article may list ('LC-34 and LC-37')",
        'a number that names rather than counts (the question asks "what pad", the passage writes "pad 37") is not changed',
        failures=(),
        cases=(
            MadeUp(
                ("The rocket launched from pad [[37]] at dawn.",),
                "From what pad did the rocket launch?",
                "quantity",
                "38",
            ),
        ),
    ),
    Rule(
        "person_credited",
        "another sentence of the article names the answer and tells the facts of the answer's sentence ('Miller had six total tackles (five solo), 2½ sacks, and two forced fumbles'), or names the alternative on those facts in another part ('Trevathan recovered the fumble')",
        "a person is not replaced where another sentence of the article names them on the facts of the answer's sentence (two content words shared), nor by a person the article names on those facts in another part",
        failures=(
            Failure("56d98b33dc89441400fdb53d", "Von Miller", "Danny Trevathan", "Von Miller led the team"),
        ),
        cases=(
            MadeUp(
                (
                    "[[Karl Aller]] forced two fumbles in the final.",
                    "In the final game, Aller had six tackles and forced two fumbles.",
                ),
                "Who forced two fumbles in the final?",
                "person",
                "Danny Trevor",
            ),
        ),
    ),
    Rule(
        "count_share_of_whole",
        "another sentence of the article gives a share of the same whole that restates the percentage within a few points ('61% of GDP' and 'now contributes 62% of GDP'), which any alternative contradicts, or a share that the alternative, not the answer, would push past 100% ('80%' beside '22% of GDP still comes from the unreliable agricultural sector')",
        'a percentage is not changed where another sentence of the article gives a share of the same whole (the word after "% of", past a possessive) within 3 points of it ("61% of GDP" and "now contributes 62% of GDP"), and an alternative does not push a share of the same whole past 100% where the answer does not ("80%" beside "22% of GDP still comes from the unreliable agricultural sector")',
        failures=(Failure("572917ff6aef051400154a5e", "61%", "80%", "now[when?] contributes 62% of GDP"),),
        cases=(
            MadeUp(
                ("Services make up [[61%]] of GDP.", "Today the sector contributes 62% of GDP."),
                "What share of GDP do services make up?",
                "quantity",
                "70%",
            ),
        ),
    ),
    Rule(
        "count_equivalent",
        "the answer's sentence gives the number again in another form in a parenthesis ('96.26% of all households ... (or 300,794,157 Americans ...)', '86 km (53 mi)'), so any other number breaks the equivalence",
        'a number is not changed where a parenthesis of its clause gives it again in another form ("96.26% of all households in the United States (or 300,794,157 Americans …)", "86 km (53 mi)")',
        failures=(Failure("57275339dd62a815002e9b2b", "96.26%", "69.26%", "(or 300,794,157 Americans"),),
        cases=(
            MadeUp(
                ("The path runs [[86]] km (53 mi) along the coast.",),
                "How long is the path?",
                "quantity",
                "90",
            ),
        ),
    ),
    Rule(
        "date_narrative_slot",
        "the article tells its events in order around the answer (the nearest dated paragraphs before it date nothing after the answer, those after it nothing before), and the alternative leaves its order to the latest date before or the earliest after (Tesla in Prague in January 1880, so his move to Budapest stays after it); looser, where the paragraphs only open in order around it (a look back inside one), between their first dates",
        'where the article tells its events in order around the answer\'s paragraph (its nearest three dated paragraphs on each side, at least three in all, open in order, none before dates anything after the answer and none after anything before it), a year or date keeps its order to the latest date before and the earliest after (Tesla\'s move to Budapest in 1881 stays after "In January 1880 … Prague" and before 1882); in an article that opens with a life\'s or a war\'s span ("Nikola Tesla (… 10 July 1856 – 7 January 1943)"), also where the paragraphs only open in order around it (a look back to 1882 inside one), between their first dates (Lane and Vail in 1886, so Brown and Peck "in late 1886" not 1885)',
        failures=(
            Failure("56e0d402231d4119001ac3fc", "1881", "1872", "In January 1880, two of Tesla's"),
            Failure("56e0d810231d4119001ac432", "1886", "1885", "two businessmen in 1886"),
        ),
        cases=(
            MadeUp(
                (
                    "The school opened in 1873.",
                    "A canal was dug in 1875.",
                    "Ivo moved to Budapest in [[1881]].",
                    "The rail line came in 1882.",
                ),
                "When did Ivo move to Budapest?",
                "year",
                "1874",
            ),
        ),
    ),
    Rule(
        "date_order_same_verb",
        "the alternative crosses a date of a sentence of another paragraph that tells the same action, a past form of the answer's sentence or the action it follows or precedes ('In 1225 both divisions returned' and 'In 1226, immediately after returning from the west')",
        'a year or date crosses no date of a sentence of another paragraph that tells the same action, a past verb of the answer\'s sentence in any form ("In 1225 both divisions returned" and "In 1226, immediately after returning from the west": not 1227)',
        failures=(
            Failure("57272bcb5951b619008f8686", "1225", "1227", "In 1226, immediately after returning"),
            Failure("57272ce1f1498d1400e8f43a", "1226", "1224", "both divisions returned"),
        ),
        cases=(
            MadeUp(
                (
                    "In [[1225]] both divisions returned to the capital.",
                    "In 1226, soon after returning from the west, the army attacked the Tangut.",
                ),
                "When did both divisions return to the capital?",
                "year",
                "1227",
            ),
        ),
    ),
    Rule(
        "date_days_apart",
        "a sentence of the article dates another day within a week of the answer's day ('concluded on 17 February 1546' and the death on 18 February 1546): the alternative must keep its order to it and stay within twice the answer's gap",
        "where the article dates another day within a week of the answer's day, the alternative keeps its order to it and stays within twice the answer's gap (\"concluded on 17 February 1546\" and Luther's death on 18 February 1546, the same night: not 3 February)",
        failures=(
            Failure(
                "56f8c8469e9bad19000a04c6",
                "17 February 1546",
                "3 February 1546",
                "at 2:45 a.m. on 18 February 1546",
            ),
        ),
        cases=(
            MadeUp(
                (
                    "The council concluded its work on [[17 February 1546]].",
                    "The bishop died on 18 February 1546 in the town.",
                ),
                "When did the council conclude its work?",
                "date",
                "3 February 1546",
            ),
        ),
    ),
    Rule(
        "restated_anywhere",
        "the article states the answer's value again anywhere, whatever its words: the same day and month ('18 February' and '18 February 1546'), the answer's day as its month and year ('November 20, 1985' and 'not released until November 1985'), the same number or the number at lower precision ('3,792,621' and '3.7 million'), a whole number with its unit at a finer precision ('28° East' and '28.5°E'), or a total that a count and its share in the paragraph imply ('245,306 (49.6%) White' for 494,665)",
        'no alternative where the article states the answer\'s value again anywhere, whatever its words: the same day and month ("honoured on 18 February" and his death "on 18 February 1546"), the answer\'s day as its month and year ("on November 20, 1985" and "not released until November 1985"), the same number of three significant digits or more, or the number at lower precision ("3,792,621" and "Los Angeles (at 3.7 million people)"), a whole number with its unit at a finer precision ("a satellite at 28° East" and "the 28.5°E orbital position"), or a total that a count of the paragraph and its share imply ("245,306 (49.6%) White" in a population of 494,665)',
        failures=(
            Failure("5705e63175f01819005e7721", "3,792,621", "3,380,585", "at 3.7 million people"),
            Failure("5725f7cd38643c19005acf23", "494,665", "425,403", "245,306 (49.6%) White"),
            Failure("56f8ce779b226e1400dd103d", "18 February", "11 February", "18 February 1546"),
            Failure(
                "5709686c200fba1400367f7a", "28", "23", "28.5°E orbital position", at="satellite at 28° East"
            ),
            Failure(
                "5d66ee342b22cd4dfcfbe59c", "1985", "1987", "until November 1985", "squadshifts-new-wiki"
            ),
        ),
        cases=(
            MadeUp(
                (
                    "The city had [[3,792,621]] residents in the census.",
                    "It is the second city of the nation (at 3.7 million people).",
                ),
                "How many residents did the city have?",
                "quantity",
                "3,380,585",
            ),
            MadeUp(
                (
                    "Channels on a satellite at [[28]]° East may join the guide.",
                    "The service moved to the 28.5°E orbital position in 1998.",
                ),
                "Where must a satellite be for its channels to join the guide?",
                "quantity",
                "23",
            ),
            MadeUp(
                (
                    "The firm introduced its first phone on [[November 20, 1985]], in Boston.",
                    "The phone was not sold until November 1985 in the shops.",
                ),
                "When did the firm introduce its first phone?",
                "date",
                "November 20, 1987",
            ),
        ),
    ),
    Rule(
        "count_per_each",
        "the count is the size of each of a set of units ('each Tumen consisting of 10,000 troops', 'each electorate represented by five representatives'): the unit's definition or a product with the set (eight electorates of five, an upper house of 40) fixes it",
        'no alternative for the size of each of a set of units ("each Tumen consisting of 10,000 troops"; "eight electorates with each electorate represented by five representatives", where the upper house has 40 members): a definition or a product fixes it',
        failures=(
            Failure("570d26efb3d812140066d491", "five", "six", "each electorate represented by five"),
            Failure("572864dd4b864d1900164979", "10,000", "12,000", "each Tumen consisting of"),
        ),
        cases=(
            MadeUp(
                ("The army was split into units, each consisting of [[10,000]] troops.",),
                "How many troops were in each unit?",
                "quantity",
                "12,000",
            ),
        ),
    ),
    Rule(
        "count_complement",
        "the sentence goes on to the rest of a known whole ('30 US states have banned corporal punishment, the others have not'), which the reader may count",
        'no alternative for a count whose sentence goes on to the rest of a known whole ("30 US states have banned corporal punishment, the others … have not")',
        failures=(Failure("56e7591b00c9c71400d76fec", "30", "20", "the others (mostly in the South)"),),
        cases=(
            MadeUp(
                ("By then [[30]] states had banned the practice, while the others had not.",),
                "How many states had banned the practice?",
                "quantity",
                "20",
            ),
        ),
    ),
    Rule(
        "count_shares_listed",
        "the percentage stands in a paragraph that lists two or more other shares of the same people ('26.7%' Catholics, 'around 20%' no religion beside '61.1%' Christian): the shares must leave room for one another",
        'no alternative for a percentage whose paragraph lists two or more other shares ("61.1% … Christian" beside "26.7%" Catholics and "Around 20%" with no religion)',
        failures=(Failure("570d29c2b3d812140066d4bd", "61.1%", "44.1%", "Around 20% of Victorians"),),
        cases=(
            MadeUp(
                (
                    "About [[61.1%]] of residents are Christian. Some 26.7% are Catholic. Around 20% claim no religion.",
                ),
                "What share of residents are Christian?",
                "quantity",
                "44.1%",
            ),
        ),
    ),
    Rule(
        "date_duration_tied",
        "the answer's paragraph states a duration of years ('his eleven-year military dictatorship', 'for 11 years', 'ten years later') or of six months or more ('their 18-month engagement') that is, within a year, the distance from the answer to another year of the paragraph ('killed in 1988'), or a duration of its own sentence ('exactly one century after Rainulf was crowned count') that is the distance to a year of a sentence of the article tied to it: the arithmetic fixes the answer",
        'no alternative for a year or date whose paragraph states a duration of years or of six months or more ("their 18-month engagement … in 2008") that is, within a year, its distance to another year of the paragraph ("his eleven-year military dictatorship" and "killed in 1988" fix Zia-ul-Haq\'s coup in July 1977; ages and "11,000 years" are not durations here), or a duration of its own sentence that is its distance to a year of a tied sentence elsewhere ("crowned king in 1130 (exactly one century after Rainulf was crowned count)" and Rainulf\'s county "in 1030")',
        failures=(
            Failure("57302ad804bcaa1900d772af", "1977", "1976", "his eleven-year military dictatorship"),
            Failure(
                "56d12b6b17492d1400aabb39", "August 2006", "May 2006", "18-month engagement", "squad-train"
            ),
            Failure(
                "56de1645cffd8e1900b4b5d1",
                "1130",
                "1132",
                "exactly one century after Rainulf",
                at="was crowned king in 1130 (exactly",
            ),
        ),
        cases=(
            MadeUp(
                ("In July [[1977]], General Zar began his eleven-year rule. He was killed in 1988.",),
                "When did General Zar begin his rule?",
                "year",
                "1976",
            ),
            MadeUp(
                ("The pair married in [[June 1998]]. Their 20-month marriage ended in 2000.",),
                "When did the pair marry?",
                "date",
                "March 1998",
            ),
        ),
        stricter=True,
    ),
    Rule(
        "count_of_a_group",
        "the count is of a group the article has named or goes on to name ('all 32 of these astronauts', 'these 12 apostles', 'each of the 24'), which a reader counts in the article",
        'no alternative for a count of a group the text has named ("all 32 of these astronauts", "these 12 apostles", "each of the 24"), which a reader counts in the article',
        failures=(
            Failure("5725d61038643c19005acdd3", "32", "38", "NASA awarded all 32 of these astronauts"),
        ),
        cases=(
            MadeUp(
                ("The agency awarded all [[32]] of these astronauts its medal.",),
                "How many astronauts did the agency award its medal?",
                "quantity",
                "38",
            ),
        ),
        stricter=True,
    ),
    Rule(
        "date_numbered_series",
        "the answer dates a numbered event ('Super Bowl XXXVII took place in San Diego in 2003') whose series the article dates at another number ('Super Bowl XIX in 1985'): the numbering fixes the year",
        'no alternative for a year of a numbered event ("Super Bowl XXXVII took place in San Diego in 2003") where the article dates another number of the series ("Super Bowl XIX in 1985", "Super Bowl 50" in the 2015 season)',
        failures=(Failure("56d6f0770d65d2140019826a", "2003", "2001", "Super Bowl 50 was an American"),),
        cases=(
            MadeUp(
                (
                    "Grand Cup XXXVII took place in Lisbon in [[2003]].",
                    "Grand Cup XIX was held in Porto in 1985.",
                ),
                "When did Grand Cup XXXVII take place?",
                "year",
                "2001",
            ),
        ),
    ),
    Rule(
        "date_sequence_tied",
        "the answer's paragraph counts years on from the answer ('In 1875, Tesla enrolled …', 'During his third year …') and a sentence tied to it dates a later event within that count and a year more ('In December 1878, Tesla left Graz'): the years between are spoken for",
        'no alternative for a year whose paragraph counts years on from it ("In 1875, Tesla enrolled …", "During his third year …", an ordinal year, season or term, or a duration) where a tied sentence dates a later event within that count and a year more ("After his father\'s death in 1879", "In December 1878, Tesla left Graz"): the years between are spoken for',
        failures=(
            # Issue 32's read: Tesla enrolling in 1876 still has a "third year" before his father's death.
            Failure("56e0cbf3231d4119001ac3ac", "1875", "1876", "After his father's death in 1879"),
        ),
        cases=(
            MadeUp(
                (
                    "In [[1875]], Ivo enrolled at the college. During his third year, Ivo lost his grant.",
                    "In December 1878, Ivo left the town.",
                ),
                "When did Ivo enroll at the college?",
                "year",
                "1876",
            ),
        ),
        stricter=True,
    ),
    Rule(
        "compatible_bound",
        "the answer stands under a one-sided qualifier ('over 800,000', 'more than 120', 'after 1848') or an approximation ('about 1850') that the answer still satisfies with the alternative in its place, so the two passages do not contradict each other (issue 32's readers)",
        'no alternative under a one-sided qualifier or an approximation that the answer still satisfies ("over 800,000" against "over 900,000", "more than 120" against "more than 100", "after 1848" against "after 1850"; the lint `no_compatible_bound` above is the same check on a built passage)',
        failures=(Failure("57267f1cdd62a815002e8740", "232", "270", "over 232 affiliated"),),
        cases=(
            MadeUp(
                ("The region has over [[800,000]] Muslims.",),
                "How many Muslims does the region have?",
                "quantity",
                "900,000",
            ),
        ),
    ),
    Rule(
        "date_close_same_verb",
        "a sentence that tells the same action as the answer's ties it closely to its own date ('In 1226, immediately after returning from the west'; 'the following year', 'shortly after'): the alternative may not move farther from that date than the answer is",
        'a year or date moves no farther than the answer from the date of a sentence that tells the same action and ties it closely ("immediately after", "shortly after", "the following year": "In 1226, immediately after returning from the west" keeps the return of 1225 from 1224)',
        failures=(
            Failure("57272bcb5951b619008f8686", "1225", "1224", "In 1226, immediately after returning"),
        ),
        cases=(
            MadeUp(
                (
                    "In [[1225]] both divisions returned to the capital.",
                    "In 1226, immediately after returning from the west, the army attacked the Tangut.",
                ),
                "When did both divisions return to the capital?",
                "year",
                "1224",
            ),
        ),
        stricter=True,
    ),
    Rule(
        "arithmetic_tie",
        "the value can be recomputed from numbers of the article that stay: a conversion written beside it ('305 square miles (790 km2)', 'a 573-meter (1,880 ft) track', 'the five-foot-five inch (165 cm)', '150 to 300 watts per square meter or 3.5 to 7.0 kWh/m2'), a share beside its count whose total another paragraph states ('80,000 … 13%' of 630,383), shares of the paragraph that add up to a whole with it (52% and 48%, 31% and 69% of global GDP), a total that a count and its share elsewhere imply ('350,000 … 30% of the city' for 1,300,000 people, which an alternative may not cross), a density or ratio of its paragraph ('4,097.9 people per square mile'), parts that another paragraph counts and that add up to it ('39,200 active personnel' and 21,000, 10,700 and 7,500 in three branches), a part that adds up with others of its passage to a total another paragraph states (33, 25 and 18 seats of 76 senators), or the same number again in its paragraph ('reduced from 44' and '44 members')",
        'no value that arithmetic ties to numbers that stay: a conversion beside it, in digits or words, of the first number of a range too ("305 square miles (790 km2)", "1,160,000 square miles (3,000,000 km2)", "a 573-meter (1,880 ft) track", "the five-foot-five inch (165 cm)", "150 to 300 watts per square meter or 3.5 to 7.0 kWh/m2"), a share beside a count of at least 1,000 that rounds as the share of that count in a total another sentence of the article states ("80,000 … 13%" and "630,383"), shares of its paragraph that add up to 100 with it (52% female and 48% male; 31% and 69% of global GDP), a total within 15% of what a count and its share elsewhere imply, on the same side of it ("more than 350,000 … about 30% of the city" against 1,800,000 or 1,000,000 people), a count of a paragraph that gives a density ("4,097.9 people per square mile"), a total that two to four counts of another paragraph add up to ("the three branches numbered 39,200" and an army of 21,000, a navy of 10,700 and an air force of 7,500), a part that adds up with two or three others of its passage to a total another paragraph states ("33 Coalition, 25 Labor and 18 crossbench" seats and "76 senators"), or a number its paragraph states again ("reduced from 44 to 40" and "44 members")',
        failures=(
            Failure("57337f6ad058e614000b5bcb", "1,300,000", "1,800,000", "about 30 percent of the city"),
            Failure("57337f6ad058e614000b5bcb", "1,300,000", "1,000,000", "about 30 percent of the city"),
            Failure(
                "5733f37ed058e614000b6652",
                "39,200",
                "39,600",
                "10,700",
                "squad-train",
                "the three branches numbered 39,200 active personnel",
            ),
            Failure("5d65c6412b22cd4dfcfbcc9d", "25", "29", "76", "squadshifts-new-wiki"),
            Failure(
                "5d66017c2b22cd4dfcfbd570",
                "1,880",
                "1,950",
                "573-meter",
                "squadshifts-new-wiki",
                "573-meter (1,880 ft) track",
            ),
            Failure("5725fabc89a1e219009ac128", "427,652", "448,775", "per square mile"),
            Failure("573388854776f41900660cba", "69%", "68%", "31%", "squad-train"),
            Failure(
                "573417154776f41900661846", "48%", "43%", "52% was female", "squad-train", "48% was male"
            ),
            Failure("56cf9d81234ae51400d9be1f", "790", "820", "305 square miles", "squad-train", "(790 km2)"),
            Failure("570d44abb3d812140066d5fe", "44", "42", "44 members", at="reduced from 44 to 40"),
            Failure(
                "5729f2646aef051400155134",
                "3,000,000",
                "2,500,000",
                "1,160,000 square miles",
                at="(3,000,000 km2)",
            ),
        ),
        cases=(
            MadeUp(
                ("The lake covers 305 square miles ([[790]] km2) of the plain.",),
                "How large is the lake?",
                "quantity",
                "820",
            ),
            # issue 32's fifteenth read (seed 3838): a share beside its count, whose total another
            # paragraph states
            MadeUp(
                (
                    "Kelso has a population of 630,383.",
                    "About 80,000 of its people, [[13%]], are Muslims.",
                ),
                "What share of Kelso's people are Muslims?",
                "quantity",
                "14%",
            ),
            # issue 32's fifteenth read (seed 8484): a conversion of a number in words, and of a range's first
            # number, in units the earlier reads had not shown
            MadeUp(
                ("He hung a banner on the six-foot-two inch ([[188]] cm) guard's door.",),
                "How tall was the guard?",
                "quantity",
                "191",
            ),
            MadeUp(
                ("The panels give [[150]] to 300 watts per square meter or 3.5 to 7.0 kWh/m2 per day.",),
                "How much power do the panels give?",
                "quantity",
                "160",
            ),
            MadeUp(
                ("Of the pupils, [[48%]] were boys and 52% were girls.",),
                "What share of the pupils were boys?",
                "quantity",
                "43%",
            ),
            MadeUp(
                (
                    "The council was reduced from [[44]] to 40 members. Before that, it had 44 members from 22 wards.",
                ),
                "How many members did the council have before?",
                "quantity",
                "42",
            ),
            MadeUp(
                (
                    "In 1939 about [[1,300,000]] people lived in the town.",
                    "Its 350,000 weavers were about 30% of the town.",
                ),
                "How many people lived in the town in 1939?",
                "quantity",
                "1,800,000",
            ),
            MadeUp(
                (
                    "In 1939 about [[1,300,000]] people lived in the town.",
                    "Its 350,000 weavers were about 30% of the town.",
                ),
                "How many people lived in the town in 1939?",
                "quantity",
                "1,000,000",
            ),
            MadeUp(
                (
                    "In 2008 the three branches numbered [[39,200]] active personnel.",
                    "The army has 21,000 soldiers, the navy 10,700 sailors and the air force 7,500 airmen.",
                ),
                "How many active personnel did the branches number in 2008?",
                "quantity",
                "39,600",
            ),
            MadeUp(
                (
                    "The senate has 76 senators, elected for six years.",
                    "The coalition holds 33 seats, the opposition [[25]] and the crossbench 18.",
                ),
                "How many seats does the opposition hold?",
                "quantity",
                "29",
            ),
            MadeUp(
                ("A funicular runs along a steep 573-meter ([[1,880]] ft) track up the hill.",),
                "How long is the funicular's track in feet?",
                "quantity",
                "1,950",
            ),
            MadeUp(
                ("There were [[427,652]] people in the town. The density was 4,097 people per square mile.",),
                "How many people lived in the town?",
                "quantity",
                "448,775",
            ),
        ),
    ),
    Rule(
        "impossible_value",
        "the value cannot be: a day of a month edited as a count ('March 37') or to a day its month has not, a year edited as a count ('began in 899') or moved out of a century the article names ('the 10th century'), a distance that names a conventional event ('110 m hurdles', not '130 m hurdles')",
        'no value that cannot be: a day of a month ("arriving on March 31", not "March 37"), a year read as a count ("began in 911 as a fiefdom", not 899) or moved out of a century the article names ("In the course of the 10th century"), a distance that names a conventional event ("110 m hurdles", "100-meter dash")',
        failures=(
            Failure(
                "56db2ce6e7c41114004b4ec0", "31", "37", "March 31", "squad-train", "arriving on March 31"
            ),
            Failure(
                "5d66f8a02b22cd4dfcfbe891",
                "110",
                "130",
                "110 m hurdle",
                "squadshifts-new-wiki",
                "110 m hurdle",
            ),
            Failure("56de148dcffd8e1900b4b5be", "911", "899", "began in 911", at="began in 911 as a fiefdom"),
        ),
        cases=(
            MadeUp(
                ("The torch arrived in the city on March [[31]].",),
                "When did the torch arrive?",
                "quantity",
                "37",
            ),
            MadeUp(("The duchy began in [[911]] as a fief.",), "How many knights?", "quantity", "899"),
            MadeUp(
                ("The abbey was founded in [[1101]].", "It grew through the 12th century."),
                "When was the abbey founded?",
                "year",
                "1099",
            ),
            MadeUp(
                ("She ran the [[100]] m hurdles at the games.",), "How long was her race?", "quantity", "120"
            ),
            MadeUp(
                ("The fair opened on [[30 April]] in the park.",),
                "When did the fair open?",
                "date",
                "31 April",
            ),
        ),
    ),
    Rule(
        "number_in_name",
        "the number is part of a name ('Super Bowl 50', 'Apollo 11', 'Route 66', 'Boeing 747', 'the War of 1812'): changing it names another thing, or a thing the naming convention rules out ('Super Bowl 40' among Roman numerals)",
        'no number that is part of a name ("for Super Bowl 50, the cameras were upgraded", not "Super Bowl 40"; "Apollo 11", "Route 66", "Boeing 747")',
        failures=(
            Failure(
                "56bec0dd3aeaaa14008c935a", "50", "40", "Super Bowl 50", at="for Super Bowl 50, the cameras"
            ),
            Failure(
                "56dde56e9a695914005b967c",
                "1812",
                "1813",
                "War of 1812",
                "squad-train",
                "Revolutionary War and War of 1812",
            ),
        ),
        cases=(
            MadeUp(("The crew of Apollo [[11]] landed in July.",), "Which mission landed?", "quantity", "12"),
            MadeUp(
                ("Farmers were ruined in the Panic of [[1873]], which closed the banks.",),
                "When were the farmers ruined?",
                "year",
                "1874",
            ),
            MadeUp(
                ("Traffic on Route [[66]] fell after the highway opened.",),
                "What road lost traffic?",
                "quantity",
                "64",
            ),
            MadeUp(
                ("The airline bought the Boeing [[747]] for long flights.",),
                "Which model?",
                "quantity",
                "757",
            ),
        ),
    ),
    Rule(
        "date_chain_article",
        "a sentence of another paragraph on the same things (two content words of the answer's sentence or of one at most two sentences from it) dates an event inside the answer's year that the alternative leaves ('the two chief armed rebellions (in Virginia in 1676', 'in July 1505 … law school')",
        'a year or date keeps every date inside it of a sentence of another paragraph on the same things (two content words of the answer\'s sentence or of one at most two sentences from it: Bacon\'s Rebellion and "in Virginia in 1676"; Luther\'s degree of 1505, law school "that year", and leaving "law school" in July 1505)',
        failures=(
            Failure("56f7e9caaef2371900625c5a", "1505", "1503", "July 1505"),
            Failure(
                "5d6628572b22cd4dfcfbda4c", "1676", "1674", "in Virginia in 1676", "squadshifts-new-wiki"
            ),
        ),
        cases=(
            MadeUp(
                (
                    "Orvel took his degree in [[1505]]. He entered law school that year.",
                    "In July 1505 he left law school.",
                ),
                "When did Orvel take his degree?",
                "year",
                "1503",
            ),
            MadeUp(
                (
                    "The Marsh Rising broke out in [[1676]]. Its rebels burned the mills of the valley.",
                    "The mills of the valley burned again in May 1676.",
                ),
                "When did the Marsh Rising break out?",
                "year",
                "1674",
            ),
        ),
    ),
    Rule(
        "date_fixed_calendar",
        "the answer's sentence or the next names an event of a fixed calendar (the Summer or Winter Olympics, the FIFA World Cup, a US presidential election, a US or UK census) whose calendar holds the answer's year and not the alternative's: a reader knows there was no Olympic relay in 1962 nor a presidential election in 1993",
        'no alternative year off the calendar of an event its sentence or the next names ("an Olympic torch relay … the 1964 Tokyo edition", not 1962; "supported a Democrat for president in 1992", not 1993; "In 1790 … The first census", not 1789): the Olympics and World Cup every four years, US presidential elections every four, censuses every ten',
        failures=(
            Failure(
                "56db3546e7c41114004b4f48", "1964", "1962", "Olympic torch relay was held", "squad-train"
            ),
            Failure("57341184d058e614000b68db", "1992", "1993", "for president in 1992", "squad-train"),
            Failure("5d66187a2b22cd4dfcfbd856", "1790", "1789", "The first census", "squadshifts-new-wiki"),
        ),
        cases=(
            MadeUp(
                ("The city last hosted the Olympic Games in [[1972]], to great acclaim.",),
                "When did the city last host the Games?",
                "year",
                "1971",
            ),
            MadeUp(
                ("The county first backed a Democrat for president in [[1932]].",),
                "When did the county first back a Democrat?",
                "year",
                "1930",
            ),
            MadeUp(
                ("The town had 1,200 people in [[1850]]. The census listed most of them as farmers.",),
                "When did the town have 1,200 people?",
                "year",
                "1852",
            ),
            MadeUp(
                ("The ski jump was built for the [[1994]] Winter Olympics.",),
                "When were the Winter Olympics held there?",
                "year",
                "1996",
            ),
        ),
        stricter=True,
    ),
    Rule(
        "count_stated_proportion",
        "a sentence states a proportion of a whole ('most of its metropolitan population within the city limits', '51% of the vote would lead to a clear majority'): a percentage alternative must not cross it, nor the ratio of a count to another count of its paragraph cross it or come within five points of it",
        'no alternative that breaks a proportion the text states: a percentage across the share its sentence names ("51% of the vote would lead to a clear majority", not 47%), a count whose ratio to another count of its paragraph crosses or nears the share its paragraph names ("placed most of its metropolitan population within the city limits" beside 853,382 city dwellers: not a metropolitan 1,651,797)',
        failures=(
            Failure(
                "5727c94bff5b5019007d954b", "1,345,596", "1,651,797", "most of its metropolitan population"
            ),
            Failure(
                "5d66d9322b22cd4dfcfbe4c7",
                "51%",
                "47%",
                "a clear majority of 3 out of 5",
                "squadshifts-new-wiki",
            ),
        ),
        cases=(
            MadeUp(
                ("In the vote, [[55%]] of members said yes, a slim majority of the council.",),
                "What share voted yes?",
                "quantity",
                "45%",
            ),
            MadeUp(
                (
                    "The district holds [[40,000]] people; most of its population lives in Arlo, a town of 30,000.",
                ),
                "How many people does the district hold?",
                "quantity",
                "62,000",
            ),
            MadeUp(
                (
                    "The league has [[36]] clubs. Two-thirds of the clubs play in the north, where 24 are based.",
                ),
                "How many clubs does the league have?",
                "quantity",
                "30",
            ),
        ),
    ),
    Rule(
        "date_relative_tied",
        "a sentence of the article on the same event (a name of the answer's sentence or two of its content words) dates it from the year of the sentence before it ('Real disturbances did not occur … until 1990. The following year, the Soviet Union collapsed, and Tajikistan declared its independence') to the answer's year: the arithmetic fixes the answer",
        'no alternative for a year that a sentence on the same event dates from the sentence before it ("… until 1990. The following year, the Soviet Union collapsed, and Tajikistan declared its independence" fixes "an independent nation in 1991"; "Two years later", "That same year")',
        failures=(
            Failure(
                "5733e4e7d058e614000b6501",
                "1991",
                "1990",
                "The following year, the Soviet Union collapsed",
                "squad-train",
                "an independent nation in 1991",
            ),
        ),
        cases=(
            MadeUp(
                (
                    "Work on the Harlow canal began in 1820. Two years later, the Harlow canal opened to barges.",
                    "The Harlow canal opened to barges in [[1822]], bringing coal to the town.",
                ),
                "When did the canal open to barges?",
                "year",
                "1823",
            ),
            MadeUp(
                (
                    "The Vell guild was founded in 1702. The following year, the guild built its Vell hall.",
                    "The Vell hall was built in [[1703]] beside the river.",
                ),
                "When was the Vell hall built?",
                "year",
                "1704",
            ),
        ),
        stricter=True,
    ),
    Rule(
        "count_product_stated",
        "another sentence of the article states the count as a product ('In season one, there were three groups of ten' beside 'These were cut to 30 for the semifinal'): the arithmetic fixes it",
        'no alternative for a count another sentence states as a product ("three groups of ten" semi-finalists beside "cut to 30 for the semifinal"; "four teams of five")',
        failures=(
            Failure(
                "56db079fe7c41114004b4c7d",
                "30",
                "32",
                "three groups of ten",
                "squad-train",
                "These were cut to 30 for the semifinal",
            ),
        ),
        cases=(
            MadeUp(
                ("The relay drew [[20]] runners from the county.", "They ran in four teams of five."),
                "How many runners did the relay draw?",
                "quantity",
                "24",
            ),
            MadeUp(
                ("The hall seats [[120]] guests at its dinners.", "Guests sit in twelve rows of ten."),
                "How many guests does the hall seat?",
                "quantity",
                "130",
            ),
        ),
        stricter=True,
    ),
    Rule(
        "date_named_era",
        "the answer's sentence or paragraph places its events after, during or before a named war whose years a reader knows (the Second World War, the English Civil War, …) and the alternative's year leaves that place ('The first comprehensives were set up after the Second World War' against 1944; 'in 1641, during the English Civil War')",
        'no alternative year that leaves its place after, during or before a named war of its sentence or paragraph ("set up after the Second World War": not 1944; "in 1642, during the English Civil War": not 1641)',
        failures=(
            Failure("56dc7afb14d3a41400c268e5", "1946", "1944", "after the Second World War", "squad-train"),
            Failure(
                "5d6661b52b22cd4dfcfbdd20",
                "1642",
                "1641",
                "during the English Civil War",
                "squadshifts-new-wiki",
                "English language in 1642, during",
            ),
        ),
        cases=(
            MadeUp(
                (
                    "The first clinics opened after the Second World War. The Arden clinic opened in [[1947]].",
                ),
                "When did the Arden clinic open?",
                "year",
                "1943",
            ),
            MadeUp(
                ("The mill was seized in [[1915]], during the First World War, by the army.",),
                "When was the mill seized?",
                "year",
                "1913",
            ),
        ),
        stricter=True,
    ),
    Rule(
        "count_tied_in_sentence",
        "a figure beside the count restates it: its own share ('will increase by 289,000 people …, an increase of 18.8%'), a win-loss record beside its winning percentage ('105 wins, 12 losses, and five ties' and '.881'), or an age where the article states the same person's age at another date ('the 21-year-old Major George Washington' in 1753, '22-year-old' in 1754)",
        'no alternative for a count that a figure beside it restates: its own share ("an increase of 18.8%"), a record beside its winning percentage (".881"), an age beside the same person\'s age at another date ("21-year-old" in 1753 and "22-year-old" in 1754)',
        failures=(
            Failure(
                "5d67614e2b22cd4dfcfbf942",
                "289,000",
                "290,000",
                "an increase of 18.8%",
                "squadshifts-new-wiki",
            ),
            Failure("573387acd058e614000b5cb2", "12", "11", ".881", "squad-train", "105 wins, 12 losses"),
            Failure("5733ef47d058e614000b662e", "21", "25", "22-year-old", at="the 21-year-old Major"),
        ),
        cases=(
            MadeUp(
                (
                    "The town will grow by [[41,000]] residents by 2030, an increase of 12.5% over the period.",
                ),
                "How much will the town grow?",
                "quantity",
                "44,000",
            ),
            MadeUp(
                ("Under Brann the club posted [[64]] wins and 20 losses, a .762 winning percentage.",),
                "How many wins did the club post under Brann?",
                "quantity",
                "66",
            ),
            MadeUp(
                (
                    "In 1820 the [[19]]-year-old Ellis Varn joined the fleet.",
                    "By 1825 Ellis Varn, then a 24-year-old captain, led the Varn squadron.",
                ),
                "How old was Ellis Varn when he joined the fleet?",
                "quantity",
                "21",
            ),
        ),
        stricter=True,
    ),
)
"""Every rule of believability, in the order the build reports them."""


def rules_table(report: dict) -> str:
    """The card's table of counts per rule, from the EviScope part of ``build_report.json``: questions
    the rule leaves out and gives another alternative (of those that pass the six lints), and quartets
    it removes from what ``eviscope-v1.1`` and ``eviscope-xl`` would draw without the rules."""
    counts = report["believability"]["questions"]
    configs = report["configs"]
    lines = [
        "| rule | questions left out | questions given another alternative "
        "| `eviscope-v1.1` quartets removed | `eviscope-xl` quartets removed |",
        "| --- | --- | --- | --- | --- |",
    ]
    for rule in DECLARED:
        drawn = [
            configs[c]["believability"]["rules"][rule.name]["removed"]
            for c in ("eviscope-v1.1", "eviscope-xl")
        ]
        cells = [counts[rule.name]["removed"], counts[rule.name]["replaced"], *drawn]
        lines.append(f"| `{rule.name}` | " + " | ".join(map(str, cells)) + " |")
    return "\n".join(lines)


def _rule_list(rules: list[Rule]) -> str:
    return "\n".join(f"- `{rule.name}`: {rule.doc};" for rule in rules).removesuffix(";") + "."


def standing_alone_list(report: dict) -> str:
    """Which ``eviscope-v1.1`` quartets the rule that a passage shown whole stands alone replaced (with
    the problem :func:`~eviscope.builders.eviscope.windows.window_problem` names), and which it drew
    instead, from ``build_report.json``'s ``standing_alone``."""
    found = report["configs"]["eviscope-v1.1"].get("standing_alone", {"replaced": [], "drawn_instead": []})
    lines = [f"- replaced: {r['question']} (`{r['source_id']}`, `{r['problem']}`)" for r in found["replaced"]]
    lines += [f"- drawn instead: {r['question']} (`{r['source_id']}`)" for r in found["drawn_instead"]]
    return "\n".join(lines) or "- none"


def card_sections(report: dict) -> dict[str, str]:
    """The card's generated sections, by marker name: the rules ``eviscope-v1.1`` reads, those only
    ``eviscope-xl`` reads, the table of counts (:func:`rules_table`) and the ``eviscope-v1.1`` rows
    that the rule that a passage stands alone changed (:func:`standing_alone_list`)."""
    return {
        "believability-rules": _rule_list([r for r in DECLARED if not r.stricter]),
        "believability-stricter-rules": _rule_list([r for r in DECLARED if r.stricter]),
        "believability-counts": rules_table(report),
        "v11-standing-alone": standing_alone_list(report),
    }


def render_card(card: str, report: dict) -> str:
    """``card`` with each generated section (:func:`card_sections`) written between its markers
    (``<!-- NAME -->`` and ``<!-- /NAME -->``)."""
    for name, text in card_sections(report).items():
        pattern = re.compile(rf"(<!-- {name} -->\n).*?(\n<!-- /{name} -->)", re.S)
        if not pattern.search(card):
            raise ValueError(f"the card has no <!-- {name} --> section")
        card = pattern.sub(lambda m, text=text: m[1] + text + m[2], card)
    return card
