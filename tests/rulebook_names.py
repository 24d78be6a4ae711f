"""The game's names in each language, as taken from that language's rulebook
(``../shared/seeds``, README.md there says which file is which).

Each name is keyed by its catalog context and English message (client/i18n.py) and says where
it comes from: :class:`Printed` (the rulebook prints it on that line, perhaps inflected),
:class:`Corrected` (the rulebook prints it misspelt) or :class:`Translated` (the rulebook
names nothing: a translation in its style). ``tests/test_i18n_names.py`` checks the catalogs
against this list, and this list against the rulebooks' text.
"""

from __future__ import annotations

from dataclasses import dataclass

RULEBOOKS = {
    "it": "000_fea9a05f132b4dfb.txt",
    "en": "001_d8d391468dc5e3f2.txt",
    "ru": "002_ad4bf6ecddd885b0.txt",
    "nl": "003_0c552d3d4f585cff.txt",
    "ko": "004_0241b3f2dd09e80b.txt",
}


@dataclass(frozen=True)
class Printed:
    """The rulebook prints the name on ``line`` as ``text`` (case, accents and the
    placeholder aside), or an inflected ``text`` when ``form`` says which."""
    line: int
    text: str
    form: str = ""


@dataclass(frozen=True)
class Corrected:
    """The rulebook prints the name misspelt as ``text`` on ``line``; ``why`` says what the
    catalog writes instead."""
    line: int
    text: str
    why: str


@dataclass(frozen=True)
class Translated:
    """The rulebook names nothing: a translation in its style; ``why`` names the rulebook's
    words it is made of."""
    why: str


Source = Printed | Corrected | Translated
Key = tuple[str, str]  # (context, English message)

RESOURCES = ("cocoa", "corn", "tobacco", "coffee", "cotton", "sugar cane", "potatoes", "indigo",
             "vanilla")
CHARACTERS = ("Diego de Almagro", "Juan de la Cosa", "Bartolomé de las Casas", "Gonzalo Pizarro",
              "Juan Ponce de León", "Pedro de Valdivia", "Francisco de Orellana",
              "Francisco de Coronado", "Hernán Cortés")
PROMO_CHARACTERS = ("Sergio de Lagio", "Burón el Catalán", "Estefano Guante",
                    "Vicente de la Raya")
MERCHANTS = ("Merchant of common goods", "Merchant of uncommon goods", "Merchant of rare goods")
WAREHOUSES = ("Warehouse for 2", "Warehouse for 1")
EVENTS = ("King's Aid", "Indigenous People", "Storm", "Fire", "Pirates")
STEPS = ("Event", "Supply", "Trade", "Progression")
PROMO_WHY = ("only the Italian rulebook describes the promo cards (000_fea9a05f132b4dfb.txt "
             "line 231): the Spanish name, written as the rulebook writes the other characters'")


def _each(context: str, messages: tuple[str, ...], names: tuple[str, ...],
          sources: tuple[Source, ...]) -> dict[Key, tuple[str, Source]]:
    assert len(messages) == len(names) == len(sources)
    return {(context, m): (n, s) for m, n, s in zip(messages, names, sources, strict=True)}


def _language(resources: tuple[str, ...], resource_line: int, relic: tuple[str, Source],
              caravel: tuple[str, Source], merchants: tuple[tuple[str, ...], Translated],
              warehouses: tuple[tuple[str, ...], Translated], shipyard: tuple[str, Source],
              characters: tuple[tuple[str, Source], ...],
              promo: tuple[tuple[str, Source], ...], events: tuple[tuple[str, Source], ...],
              steps: tuple[tuple[str, Source], ...], terms: tuple[tuple[str, Source], ...],
              resource_forms: tuple[str, ...] = ()) -> dict[Key, tuple[str, Source]]:
    """One language's names, in the order of the English lists above."""
    forms = resource_forms or resources
    names: dict[Key, tuple[str, Source]] = {}
    for message, name, printed in zip(RESOURCES, resources, forms, strict=True):
        form = "" if printed == name else "genitive"
        names["resource", message] = (name, Printed(resource_line, printed, form))
    names["resource", "relic"] = relic
    names["card", "Caravel {value}"] = caravel
    names.update(_each("card", MERCHANTS, merchants[0], (merchants[1],) * 3))
    names.update(_each("card", WAREHOUSES, warehouses[0], (warehouses[1],) * 2))
    names["card", "Shipyard"] = shipyard
    names.update(_each("card", CHARACTERS + PROMO_CHARACTERS + ("Trading Post",),
                       tuple(n for n, _ in characters + promo),
                       tuple(s for _, s in characters + promo)))
    names.update(_each("event", EVENTS, tuple(n for n, _ in events),
                       tuple(s for _, s in events)))
    names.update(_each("step", STEPS, tuple(n for n, _ in steps), tuple(s for _, s in steps)))
    names.update(_each("term", ("Trade Master", "market"), tuple(n for n, _ in terms),
                       tuple(s for _, s in terms)))
    return names


def _printed(line: int, name: str, text: str | None = None) -> tuple[str, Printed]:
    return name, Printed(line, name if text is None else text)


NAMES: dict[str, dict[Key, tuple[str, Source]]] = {
    # 001: the English text. The English names are the engine's own; the rulebook prints
    # every one but the merchants', the warehouses' and the promo cards'.
    "en": _language(
        RESOURCES, 27,
        relic=_printed(222, "relic", "Inca relic"),
        caravel=("Caravel {value}", Printed(279, "CARAVEL")),
        merchants=(MERCHANTS, Translated(
            "the rulebook's MERCHANTS (line 255) of common, uncommon or rare resources "
            "(line 190); no card is named")),
        warehouses=(WAREHOUSES, Translated(
            "the rulebook's WAREHOUSES (line 265) store two cards or one (line 269); no card "
            "is named")),
        shipyard=_printed(273, "Shipyard", "SHIPYARD"),
        characters=(_printed(285, "Diego de Almagro"), _printed(297, "Juan de la Cosa"),
                    _printed(315, "Bartolomé de las Casas"), _printed(307, "Gonzalo Pizarro"),
                    _printed(329, "Juan Ponce de León"), _printed(337, "Pedro de Valdivia"),
                    _printed(347, "Francisco de Orellana"),
                    _printed(359, "Francisco de Coronado"),
                    _printed(369, "Hernán Cortés", "HERNAN CORTES")),
        promo=(*((n, Translated(PROMO_WHY)) for n in PROMO_CHARACTERS),
               ("Trading Post", Translated(
                   "only the Italian rulebook describes it, as BASE COMMERCIALE "
                   "(000_fea9a05f132b4dfb.txt line 255)"))),
        events=(_printed(180, "King's Aid"), _printed(89, "Indigenous People"),
                _printed(93, "Storm"), _printed(97, "Fire"), _printed(101, "Pirates")),
        steps=(_printed(60, "Event"), _printed(61, "Supply"), _printed(62, "Trade"),
               _printed(63, "Progression")),
        terms=(_printed(25, "Trade Master"), _printed(42, "market"))),
    # 000: the Italian text, the only one with the promo cards.
    "it": _language(
        ("cacao", "granturco", "tabacco", "caffè", "cotone", "canna da zucchero", "patate",
         "indaco", "vaniglia"), 9,
        relic=_printed(158, "reliquia"),
        caravel=("Caravella {value}", Printed(191, "CARAVELLA")),
        merchants=(("Mercante di merci comuni", "Mercante di merci non comuni",
                    "Mercante di merci rare"), Translated(
            "the rulebook's table of resource classes is left in English (line 115): "
            "MERCANTI (line 173) and merce (line 175)")),
        warehouses=(("Magazzino da 2", "Magazzino da 1"), Translated(
            "the rulebook's MAGAZZINI (line 183) store two cards or one (line 185)")),
        shipyard=_printed(187, "Cantiere navale"),
        characters=(_printed(195, "Diego de Almagro"), _printed(199, "Juan de la Cosa"),
                    ("Bartolomé de las Casas", Corrected(
                        203, "BARTOLOME' DEL LA CASAS",
                        "an apostrophe for the accent and 'del la' for 'de las'")),
                    _printed(207, "Gonzalo Pizarro"), _printed(211, "Juan Ponce de León"),
                    _printed(215, "Pedro de Valdivia"), _printed(219, "Francisco de Orellana"),
                    _printed(223, "Francisco de Coronado"), _printed(227, "Hernán Cortés")),
        promo=(_printed(233, "Sergio de Lagio"), _printed(237, "Burón el Catalán"),
               _printed(241, "Estefano Guante"), _printed(245, "Vicente de la Raya"),
               _printed(255, "Base commerciale")),
        events=(_printed(51, "Aiuto del re"), _printed(52, "Indigeni"),
                _printed(53, "Tempesta"), _printed(54, "Vigili del fuoco"),
                _printed(55, "Pirati")),
        steps=(_printed(40, "Evento"), _printed(41, "Approvvigionamento"),
               _printed(42, "Commercio"), _printed(43, "Progresso")),
        terms=(_printed(7, "Mastro commerciante"), _printed(24, "mercato"))),
    # 002: the Russian text; it names the goods in the genitive only ("16 кукурузы").
    "ru": _language(
        ("какао", "кукуруза", "табак", "кофе", "хлопок", "сахарный тростник", "картофель",
         "индигофера", "ваниль"), 19,
        resource_forms=("какао", "кукурузы", "табака", "кофе", "хлопка", "сахарного тростника",
                        "картофеля", "индигоферы", "ванили"),
        relic=_printed(29, "реликвия"),
        caravel=("Каравелла {value}", Printed(243, "Каравелла")),
        merchants=(("Купец обычных ресурсов", "Купец необычных ресурсов",
                    "Купец редких ресурсов"), Translated(
            "the rulebook's Купцы (line 221) and its classes Обычные, Необычные, Редкие "
            "ресурсы (line 159)")),
        warehouses=(("Склад на 2 карты", "Склад на 1 карту"), Translated(
            "the rulebook's Склады (line 231) keep two cards or one (line 233)")),
        shipyard=_printed(239, "Верфь"),
        characters=(_printed(249, "Диего де Альмагро"),
                    ("Хуан де ла Коса", Corrected(
                        257, "Хуан де ла Роза",
                        "a misprint of Cosa (line 261 spells it Роса); Коса as the other "
                        "rulebooks write Juan de la Cosa")),
                    _printed(265, "Бартоломе де ла Касас"), _printed(275, "Гонсало Писарро"),
                    _printed(281, "Хуан Понсе де Леон"), _printed(289, "Педро де Вальдивиа"),
                    _printed(299, "Франциско де Орельяна"),
                    _printed(307, "Франциско де Коронадо"), _printed(321, "Эрнан Кортес")),
        promo=(("Серхио де Лахио", Translated(PROMO_WHY)),
               ("Бурон эль Каталан", Translated(PROMO_WHY)),
               ("Эстефано Гуанте", Translated(PROMO_WHY)),
               ("Висенте де ла Райя", Translated(PROMO_WHY)),
               ("Торговая фактория", Translated(
                   "only the Italian rulebook describes it (BASE COMMERCIALE); торговая as "
                   "in глава торгового союза (line 17)"))),
        events=(_printed(69, "Помощь короля"), _printed(73, "Аборигены"),
                _printed(77, "Шторм"), _printed(81, "Пожар"), _printed(85, "Пираты")),
        steps=(_printed(50, "Событие"), _printed(51, "Поставка"), _printed(52, "Торговля"),
               _printed(53, "Развитие")),
        terms=(_printed(126, "Глава торгового союза"), _printed(129, "рынок"))),
    # 003: the Dutch text (then the French one).
    "nl": _language(
        ("cacao", "maïs", "tabak", "koffie", "katoen", "suiker", "aardappelen", "indigo",
         "vanille"), 9,
        relic=_printed(20, "Incareliek"),
        caravel=("Karveel {value}", Printed(266, "KARVEEL")),
        merchants=(("Handelaar in veelvoorkomende goederen",
                    "Handelaar in minder voorkomende goederen",
                    "Handelaar in zeldzame goederen"), Translated(
            "the rulebook's HANDELAARS (line 242) change a goed (line 244) into one of the "
            "classes of line 179")),
        warehouses=(("Pakhuis voor 2", "Pakhuis voor 1"), Translated(
            "the rulebook's PAKHUIZEN (line 252) keep 2 cards or 1 (line 256)")),
        shipyard=_printed(260, "Scheepswerf"),
        characters=(_printed(272, "Diego de Almagro"), _printed(284, "Juan de la Cosa"),
                    _printed(296, "Bartolomé de las Casas"), _printed(306, "Gonzalo Pizarro"),
                    _printed(316, "Juan Ponce de León"), _printed(324, "Pedro de Valdivia"),
                    _printed(334, "Francisco de Orellana"),
                    _printed(346, "Francisco de Coronado"), _printed(356, "Hernán Cortés")),
        promo=(*((n, Translated(PROMO_WHY)) for n in PROMO_CHARACTERS),
               ("Handelspost", Translated(
                   "only the Italian rulebook describes it (BASE COMMERCIALE); handel as in "
                   "handelsmeester (line 7)"))),
        events=(_printed(67, "Hulp van de Koning"), _printed(71, "Inboorlingen"),
                _printed(75, "Storm"), _printed(79, "Brand"), _printed(83, "Piraten")),
        steps=(_printed(42, "Gebeurtenis"), _printed(43, "Bevoorrading"),
               _printed(44, "Handel"), _printed(45, "Vooruitgang")),
        terms=(_printed(129, "Handelsmeester"), _printed(25, "markt"))),
    # 004: the Korean text (from the Japanese edition); the file holds it twice.
    "ko": _language(
        ("카카오", "옥수수", "담배", "커피", "면", "사탕수수", "감자", "인디고", "바닐라"), 6,
        relic=_printed(6, "유물", "잉카의 유물"),
        caravel=("캐러벨선 {value}", Printed(117, "캐러벨선")),
        merchants=(("일반 자원 상인", "희귀 자원 상인", "극희귀 자원 상인"), Translated(
            "the rulebook's 상인 (line 109) and its classes 일반적인 자원, 희귀한 자원, 극히 "
            "희귀한 자원 (line 71)")),
        warehouses=(("창고 (2장)", "창고 (1장)"), Translated(
            "the rulebook's 창고 (line 113) keeps 1 or 2 cards (line 114)")),
        shipyard=_printed(115, "조선소"),
        characters=(_printed(119, "디에고 데 알마그로"), _printed(123, "후안 데 라 코사"),
                    _printed(127, "바르톨로메 데 라 카사스"), _printed(132, "곤잘로 피자로"),
                    _printed(135, "후안 폰세 데 레온"), _printed(138, "페드로 데 발디비아"),
                    _printed(142, "프란시스코 데 오레야나"),
                    _printed(145, "프란시스코 데 코로나도"), _printed(148, "에르난 코르테스")),
        promo=(("세르히오 데 라히오", Translated(PROMO_WHY)),
               ("부론 엘 카탈란", Translated(PROMO_WHY)),
               ("에스테파노 구안테", Translated(PROMO_WHY)),
               ("비센테 데 라 라야", Translated(PROMO_WHY)),
               ("교역소", Translated(
                   "only the Italian rulebook describes it (BASE COMMERCIALE); 교역 as in "
                   "교역장 (line 4)"))),
        events=(_printed(39, "국왕의 원조"), _printed(40, "원주민"), _printed(41, "폭풍"),
                _printed(42, "화재"), _printed(43, "해적")),
        steps=(_printed(25, "이벤트"), _printed(26, "보급"), _printed(27, "교역"),
               _printed(28, "발전")),
        terms=(_printed(4, "교역장"), _printed(16, "시장"))),
}


def marker(language: str, source: Source) -> str:
    """The translator comment the catalog carries for a name from ``source``: where the
    rulebook prints it, or that it is not the rulebook's."""
    book = RULEBOOKS[language]
    if isinstance(source, Printed):
        form = f" ({source.form})" if source.form else ""
        return f'rulebook {book}:{source.line} "{source.text}"{form}'
    if isinstance(source, Corrected):
        return (f'corrected, not the rulebook\'s: {book}:{source.line} prints "{source.text}": '
                f"{source.why}")
    return f"not in the rulebook, translated in its style: {source.why}"
