"""The fixed vocabulary of the synthetic news collection: subjects, places, people, fillers.

Each subject is what one TREC topic asks about: its query (the topic title), description and
what a relevant document discusses, with headline and sentence templates that use the query's
own words, so a document about the subject contains them (term highlighting has something to
find) and a passing mention of it contains a few of them too (a hard negative for runs that
match words). Templates fill ``{place}``, ``{person}``, ``{number}`` and ``{org}``. No text
holds ``&`` or ``<``: plain documents need no escaping in TREC SGML.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Subject:
    query: str  # the topic title
    description: str
    about: str  # "a relevant document is mainly about ..."
    mention: str  # a short phrase naming the subject in passing
    headlines: tuple[str, ...]
    sentences: tuple[str, ...]


SUBJECTS: tuple[Subject, ...] = (
    Subject(
        "offshore wind farms",
        "What offshore wind farms are being planned, built or opposed, and why?",
        "an offshore wind farm: its construction, approval, output or the opposition to it",
        "offshore wind",
        (
            "{place} approves offshore wind farm of {number} turbines",
            "Fishing crews oppose new offshore wind farm near {place}",
            "Offshore wind farm off {place} delivers first power",
        ),
        (
            "The offshore wind farm near {place} will have {number} turbines on the seabed.",
            "{person} of {org} said the wind farm would power most homes in the region.",
            "Engineers began driving foundations into the seabed for the offshore turbines.",
            "Fishing crews fear the wind farm will close waters they have worked for decades.",
            "Each turbine blade at the wind farm is longer than a football field, {person} said.",
            "The offshore wind project needs a new cable to bring power ashore at {place}.",
        ),
    ),
    Subject(
        "coral reef bleaching",
        "Where and why are coral reefs bleaching, and can they recover?",
        "coral bleaching on a reef: how far it has spread, its causes or the recovery",
        "coral reefs",
        (
            "Coral reef bleaching spreads along the coast of {place}",
            "Divers map coral bleaching after marine heat wave",
            "Can the reefs of {place} recover from bleaching?",
        ),
        (
            "Divers found that {number} percent of the coral on the reef had turned white.",
            "Bleaching happens when warm water drives the algae out of the coral, {person} said.",
            "Marine biologists from {org} surveyed the reef off {place} for six weeks.",
            "Some coral reef sections recovered after the water cooled, the survey found.",
            "Ocean temperatures near the reef stayed above the bleaching threshold all summer.",
            "{person} said a second bleaching season could kill corals that survived the first.",
        ),
    ),
    Subject(
        "electric city buses",
        "How are cities moving their bus fleets to electric buses, and what does it cost?",
        "electric buses in a city's fleet: their purchase, charging, range or reliability",
        "electric buses",
        (
            "{place} orders {number} electric buses for its city routes",
            "Cold weather tests range of electric city buses",
            "Charging depot delays hold up electric bus rollout in {place}",
        ),
        (
            "The transit authority of {place} will buy {number} electric buses this year.",
            "Each electric bus charges overnight at a new depot, {person} of {org} said.",
            "Drivers reported that the buses lost range on the coldest mornings.",
            "The city plans to replace every diesel bus with an electric one by 2032.",
            "Battery prices have fallen enough to make electric buses cheaper over their life.",
            "{person} said the depot for the electric buses needs a grid connection like a town's.",
        ),
    ),
    Subject(
        "river flooding levees",
        "Where have rivers flooded, and how did levees hold or fail?",
        "a river flood and the levees meant to stop it: breaches, evacuations or repairs",
        "river levees",
        (
            "River floods {place} after levee breach",
            "Engineers race to repair levees before the next river crest",
            "{number} homes evacuated as the river rises at {place}",
        ),
        (
            "The river rose {number} centimetres overnight and spilled over the levee at {place}.",
            "Residents were told to leave before the crest of the river reached the town.",
            "{person} of {org} said the levees were built for a smaller flood.",
            "Heavy rainfall upstream sent the river to its highest level in forty years.",
            "Crews stacked sandbags along the river levees through the night.",
            "The flooding closed the main bridge at {place} for three days.",
        ),
    ),
    Subject(
        "lithium mining water use",
        "How does lithium mining affect water supplies, and who objects?",
        "a lithium mine or brine field and the water it uses or pollutes",
        "lithium mining",
        (
            "Lithium mine near {place} draws water from farmers' aquifer",
            "{org} plans lithium brine field on salt flats",
            "Communities near {place} question water use of lithium mining",
        ),
        (
            "The lithium mine pumps brine from under the salt flats near {place}.",
            "Farmers say the mining has lowered the aquifer by {number} metres.",
            "{person} of {org} said the new extraction method uses less water.",
            "Lithium demand for car batteries has doubled the number of mining permits.",
            "The lithium company promised to monitor water levels in every village well.",
            "Evaporation ponds at the lithium mine cover an area larger than {place}.",
        ),
    ),
    Subject(
        "high-speed rail construction",
        "Which high-speed rail lines are under construction, and what delays or costs them?",
        "building a high-speed rail line: its route, tunnels, costs or delays",
        "high-speed rail",
        (
            "High-speed rail tunnel under {place} breaks through",
            "Costs of high-speed rail line rise to {number} billion",
            "Residents of {place} fight high-speed rail route",
        ),
        (
            "Construction of the high-speed rail line reached {place} this spring.",
            "The tunnel boring machine for the rail line advanced {number} metres a week.",
            "Trains on the new rail line will run at up to 320 kilometres an hour.",
            "{person} of {org} blamed the construction delays on the viaduct over the valley.",
            "The high-speed line will cut the journey to the capital to under two hours.",
            "Track laying on the high-speed line cannot start until the last tunnel is lined.",
        ),
    ),
    Subject(
        "antibiotic resistant infections hospitals",
        "How are hospitals dealing with infections resistant to antibiotics?",
        "antibiotic-resistant infections in hospitals: outbreaks, screening or treatment",
        "antibiotic resistance",
        (
            "Resistant infections close ward at {place} hospital",
            "Hospitals screen patients for antibiotic resistant bacteria",
            "{org} reports rise in antibiotic resistant infections",
        ),
        (
            "A hospital in {place} shut a ward after {number} patients had resistant infections.",
            "The bacteria resisted every antibiotic the doctors tried, {person} said.",
            "Hospitals now screen every patient arriving from intensive care elsewhere.",
            "{person} of {org} said overuse of antibiotics had bred the resistant strains.",
            "Infections resistant to antibiotics add weeks to a hospital stay.",
            "Cleaners disinfected the wards of both hospitals twice a day during the outbreak.",
        ),
    ),
    Subject(
        "urban bee hives",
        "Does keeping bees in cities help pollinators, and what do beekeepers report?",
        "keeping honey bees in a city: rooftop hives, honey yields or effects on wild bees",
        "bee hives",
        (
            "Rooftop bee hives multiply across {place}",
            "Urban beekeeping: do city hives crowd out wild bees?",
            "{place} beekeepers report record honey harvest from urban hives",
        ),
        (
            "There are now {number} registered bee hives on rooftops in {place}.",
            "{person} harvests honey from hives on the roof of {org}.",
            "Ecologists warn that too many bee hives may crowd out wild pollinators.",
            "Bees from urban hives forage on street trees, parks and balcony flowers.",
            "Urban beekeeping courses in {place} are booked months ahead.",
            "The hives produced {number} kilograms of honey last summer, {person} said.",
        ),
    ),
    Subject(
        "heat wave public health",
        "How do heat waves harm public health, and what do authorities do about it?",
        "the health effects of a heat wave: heatstroke, deaths, hospital visits or cooling centres",
        "the heat wave",
        (
            "Heat wave fills hospitals in {place}",
            "{place} opens cooling centres as the heat wave passes 40 degrees",
            "Heat wave deaths among elderly prompt review",
        ),
        (
            "Temperatures stayed above {number} degrees for nine days of the heat wave.",
            "Hospitals in {place} treated hundreds of people for heatstroke during the heat wave.",
            "{person} of {org} said the elderly living alone were most at risk in the heat.",
            "The city opened cooling centres in libraries and schools during the heat wave.",
            "Public health officials urged people to drink water and stay indoors at midday.",
            "Doctors said heat waves now cause more deaths than floods in the region.",
        ),
    ),
    Subject(
        "chess tournament grandmaster",
        "Who won or lost at recent chess tournaments, and how?",
        "a chess tournament: its games, players, openings or results",
        "chess",
        (
            "Grandmaster wins chess tournament in {place}",
            "Teenager stuns grandmaster in final round of chess tournament",
            "Chess tournament in {place} ends in four-way tie",
        ),
        (
            "The grandmaster won the tournament with {number} points from eleven games.",
            "{person} chose a rare chess opening and held the endgame for a draw.",
            "The chess tournament in {place} drew players from forty countries.",
            "In the final round the grandmaster sacrificed a rook for a mating attack.",
            "{person} of {org} said online play had made young chess players stronger.",
            "The tournament's tie-break rules decided the winner on the last evening.",
        ),
    ),
    Subject(
        "wildfire smoke air quality",
        "How does wildfire smoke affect air quality far from the fires?",
        "wildfire smoke and the air people breathe: pollution levels, warnings or health",
        "wildfire smoke",
        (
            "Wildfire smoke turns skies orange over {place}",
            "Air quality warnings as wildfire smoke drifts {number} kilometres",
            "Schools in {place} keep children inside as wildfire smoke lingers",
        ),
        (
            "Smoke from the wildfire reached {place}, {number} kilometres away.",
            "Air quality readings were among the worst recorded, {person} of {org} said.",
            "People with asthma were told to stay indoors until the smoke cleared.",
            "Fine particles from wildfire smoke can travel across whole continents.",
            "The wildfire smoke closed the airport at {place} for two days.",
            "{person} said masks sold out in every pharmacy as the air quality fell.",
        ),
    ),
    Subject(
        "public library funding cuts",
        "Which public libraries face funding cuts, and what closes as a result?",
        "the funding of public libraries: cuts, closures, opening hours or campaigns to save them",
        "the library",
        (
            "{place} library branches face closure after funding cuts",
            "Readers campaign to save public library in {place}",
            "Library funding cut by {number} percent in new budget",
        ),
        (
            "The council will cut library funding by {number} percent next year.",
            "Three library branches in {place} will close on weekends.",
            "{person} of {org} said the public library is the only free warm place in town.",
            "Librarians collected signatures from readers to keep the library branches open.",
            "The library lends more books than ever but has fewer staff, {person} said.",
            "Funding cuts have already ended the library's evening opening hours.",
        ),
    ),
)

PLACES: tuple[str, ...] = (
    "Aberdeen", "Bilbao", "Cork", "Dunedin", "Esbjerg", "Fremantle", "Gdansk", "Halifax",
    "Inverness", "Jonkoping", "Kiel", "Lisbon", "Marseille", "Nantes", "Oulu", "Porto",
    "Quimper", "Rotterdam", "Split", "Tromso", "Utrecht", "Valencia", "Windhoek", "Zadar",
)  # fmt: skip
FIRST_NAMES: tuple[str, ...] = (
    "Ana", "Bram", "Chiara", "Dmitri", "Elif", "Farah", "Goran", "Hana", "Ines", "Jonas",
    "Kaia", "Luca", "Mei", "Nadia", "Omar", "Pia", "Rafael", "Sana", "Tomas", "Yusuf",
)  # fmt: skip
LAST_NAMES: tuple[str, ...] = (
    "Almeida", "Berg", "Costa", "Dahl", "Esposito", "Fischer", "Garcia", "Haddad", "Ivanova",
    "Jensen", "Kowalski", "Lindqvist", "Moreau", "Novak", "Okafor", "Petrov", "Rossi", "Sato",
)  # fmt: skip
ORGS: tuple[str, ...] = (
    "the regional council", "the national agency", "the university", "the port authority",
    "the ministry", "a local residents' group", "the environmental trust", "the union",
)  # fmt: skip
ROLES: tuple[str, ...] = ("Staff Writer", "Correspondent", "Science Editor", "City Reporter")
# Sentences about nothing in particular: every article has some.
FILLERS: tuple[str, ...] = (
    "Officials said more details would be published next month.",
    "The decision follows two years of consultation with residents.",
    "Critics said the plan had been rushed through without a vote.",
    "A spokesperson declined to comment on the figures.",
    "The work is expected to take until the end of next year.",
    "Local businesses said they had not been told in advance.",
    "The report will be discussed at the next council meeting.",
    "Similar plans elsewhere have faced legal challenges.",
    "{person} said the numbers were better than expected.",
    "Further talks with {org} are planned for the autumn.",
)
# A passing mention of another subject: its words appear, the document is not about it.
MENTIONS: tuple[str, ...] = (
    "Elsewhere in the region, talk of {mention} came up only briefly.",
    "The meeting also touched on {mention}, but took no decision.",
    "{person} compared the debate with the arguments over {mention}.",
)
