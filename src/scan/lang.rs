//! Threat regexes for instructions written in other languages: Spanish, French, German,
//! Portuguese, Italian, Russian, Chinese and Japanese here, Dutch and Polish in `nl_pl`. Each language has the same four intents
//! as the English patterns they join: ignore the previous instructions (`ignore_instructions`),
//! you are now / from now on you are (`new_instructions`), do not tell the user
//! (`hide_from_user`) and send the key to a destination (`exfiltration`).
//!
//! These regexes run in Unicode mode (`(?i)` folds Cyrillic and accented capitals) on the
//! threat views; their keywords are lower-case and checked against the view's Unicode
//! lower-casing. They use no `\b` and no `\p{…}` classes: a Unicode word boundary makes the lazy
//! DFA give up on non-Latin text, and large classes repeated by a bound make large automata.
//! Word starts are spelt out (`(?:^|[\s"'(…])`), words are runs of `[^\s.,;:!?]`, and every
//! filler is bounded.

use super::Re;

const fn ure(src: &'static str, keys: &'static [&'static [&'static str]]) -> Re {
    Re {
        src,
        keys,
        unicode: true,
    }
}

/// The start of a word.
macro_rules! ws {
    () => {
        r#"(?:^|[\s"'(\[¿¡«,;:—–-])"#
    };
}
/// Up to `$n` whole words and the space after each.
macro_rules! words {
    ($n:literal) => {
        concat!(r"(?:[^\s.,;:!?]{1,24}\s+){0,", $n, "}?")
    };
}
/// The end of a word.
macro_rules! we {
    () => {
        r"(?:$|[\s.,;:!?)»])"
    };
}

/// A destination for a leaked key: a URL, an e-mail address or host name, a webhook or paste
/// site.
macro_rules! dest {
    () => {
        r"(?:https?://|[a-z0-9._%+-]+@[a-z0-9-]+\.|[a-z0-9-]+\.(?:com|net|org|io|xyz|ru|cn|de|fr|it|es|br|jp|tk|top|site|app|dev|me|co|sh)(?:$|[/\s:,.])|webhook|pastebin|ngrok)"
    };
}
mod nl_pl;

const DEST: &[&str] = &[
    "http", "@", ".com", ".net", ".org", ".io", ".xyz", ".ru", ".cn", ".de", ".fr", ".it", ".es",
    ".br", ".jp", ".tk", ".top", ".site", ".app", ".dev", ".me", ".co", ".sh", "webhook",
    "pastebin", "ngrok",
];

/// "Ignore the previous instructions", by language.
pub(super) static IGNORE: &[Re] = &nl_pl::IGNORE_ALL;
const BASE_IGNORE: &[Re] = &[
    // Spanish
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:ignor(?:a|e|en|ad)|olvid(?:a|e|en|ad)|descart(?:a|e|en)|omit(?:e|a|an)|haz\s+caso\s+omiso|hagan\s+caso\s+omiso|no\s+(?:sigas|siga|sigan|obedezcas|obedezca|hagas\s+caso))\s+(?:(?:de|a)\s+)?",
            r"(?:(?:tod[oa]s\s+(?:las|los|tus|sus)|tus|sus)\s+",
            words!(2),
            r"(?:instrucciones|indicaciones|órdenes|ordenes|reglas|directrices|normas|consignas|pautas|directivas)",
            r"|(?:las|los|esas|estas)\s+",
            words!(1),
            r"(?:instrucciones|indicaciones|órdenes|ordenes|reglas|directrices|normas|consignas|pautas|directivas)\s+",
            words!(1),
            r"(?:anteriores|previas|precedentes|originales|iniciales|del\s+sistema|de\s+antes|recibidas)",
            r"|(?:las|los)\s+(?:anteriores|previas|primeras)\s+(?:instrucciones|indicaciones|órdenes|reglas|directrices|normas)",
            r"|todo\s+lo\s+(?:anterior|que\s+(?:te|le|se\s+te)\s+",
            words!(2),
            r"(?:dijeron|dijo|han\s+dicho|ha\s+dicho|indicaron|ordenaron|pidieron)))"
        ),
        &[
            &[
                "ignor", "olvid", "descart", "omit", "omiso", "sig", "obedezc", "caso",
            ],
            &[
                "instruccion",
                "indicacion",
                "órdenes",
                "ordenes",
                "reglas",
                "directric",
                "normas",
                "consignas",
                "pautas",
                "directiva",
                "todo",
            ],
        ],
    ),
    // French
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:ignore[zs]?|ignorer|oublie[zs]?|oublier|ne\s+(?:tiens|tenez|tenir)\s+(?:plus\s+|pas\s+|aucun\s+)?compte|fai(?:s|tes)\s+abstraction|ne\s+(?:suis|suivez|respecte[sz]?|obéis|obéissez)\s+(?:plus|pas)|néglige[zs]?|passe[zs]?\s+outre)\s*(?:(?:de|des|du|à|aux)\s+|d')?",
            r"(?:(?:toutes\s+(?:les|tes|vos)|tous\s+(?:les|tes|vos)|tes|vos)\s+",
            words!(2),
            r"(?:instructions|consignes|règles|regles|directives|ordres|indications|prompts?)",
            r"|(?:les|ces)\s+",
            words!(1),
            r"(?:instructions|consignes|règles|regles|directives|ordres|indications)\s+",
            words!(1),
            r"(?:précédentes|precedentes|antérieures|anterieures|initiales|originales|d'origine|du\s+système|du\s+systeme|ci-dessus|d'avant|reçues|recues)",
            r"|tout\s+ce\s+qu(?:e\s+|')(?:on\s+)?(?:t'|vous\s+)?a\s+(?:été\s+)?(?:dit|demandé|ordonné)|tout\s+ce\s+qui\s+précède)"
        ),
        &[
            &[
                "ignor",
                "oubli",
                "compte",
                "abstraction",
                "sui",
                "respecte",
                "obéi",
                "néglige",
                "outre",
            ],
            &[
                "instructions",
                "consignes",
                "règles",
                "regles",
                "directives",
                "ordres",
                "indications",
                "prompt",
                "tout",
            ],
        ],
    ),
    // German
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:ignorier(?:e|en|t)?|vergiss|vergesst|vergessen\s+sie|missachte|missachten\s+sie|übergehe|verwirf|verwerfen\s+sie|befolge\s+(?:nicht|keine)|hör(?:e)?\s+nicht\s+(?:mehr\s+)?auf)\s+",
            words!(2),
            r"(?:(?:alle|sämtliche|deine|ihre|eure|jegliche)\s+",
            words!(1),
            r"(?:anweisung(?:en)?|instruktion(?:en)?|regeln|vorgaben|richtlinien|befehle|anordnungen|systemprompt|system-prompt|prompts?|[^\s.,;:!?]{1,16}anweisungen)",
            r"|(?:vorherige|vorige|bisherige|frühere|obige|ursprüngliche|alte|erste|vorangegangene|vorausgegangene)[nrs]?\s+",
            words!(1),
            r"(?:anweisung(?:en)?|instruktion(?:en)?|regeln|vorgaben|richtlinien|befehle|anordnungen|systemprompt|prompts?|[^\s.,;:!?]{1,16}anweisungen)",
            r"|alles,?\s+was\s+(?:man\s+)?(?:dir|ihnen|euch)\s+",
            words!(3),
            r"(?:gesagt|befohlen|aufgetragen|erklärt|mitgeteilt|vorgegeben)|alles\s+(?:oben|vorher|bisherige|davor))"
        ),
        &[
            &[
                "ignorier",
                "vergiss",
                "vergesst",
                "vergessen",
                "missacht",
                "übergehe",
                "verwirf",
                "verwerfen",
                "befolge",
                "nicht",
            ],
            &[
                "anweisung",
                "instruktion",
                "regeln",
                "vorgaben",
                "richtlinien",
                "befehle",
                "anordnungen",
                "prompt",
                "alles",
            ],
        ],
    ),
    // Portuguese
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:ignor(?:e|a|em|ar)|esque[çc](?:a|am)|esquecer|desconsider(?:e|a|em)|descart(?:e|a|em)|n[ãa]o\s+(?:siga|sigam|obede[çc]a|obede[çc]am)|deixe\s+de\s+lado)\s+(?:(?:de|d[aeo]s?)\s+)?",
            r"(?:(?:todas\s+as|tod[oa]s\s+(?:os|suas|tuas)|suas|tuas)\s+",
            words!(2),
            r"(?:instruções|instrucoes|orientações|orientacoes|ordens|regras|diretrizes|diretivas|comandos|indicações)",
            r"|(?:as|os|essas|estas)\s+",
            words!(1),
            r"(?:instruções|instrucoes|orientações|orientacoes|ordens|regras|diretrizes|diretivas|comandos|indicações)\s+",
            words!(1),
            r"(?:anteriores|prévias|previas|originais|iniciais|do\s+sistema|de\s+antes|recebidas|acima)",
            r"|tudo\s+(?:o\s+)?que\s+(?:te|lhe|você|voce)\s+",
            words!(2),
            r"(?:disseram|foi\s+dito|mandaram|ordenaram|pediram|instruíram))"
        ),
        &[
            &[
                "ignor",
                "esqueç",
                "esquec",
                "desconsider",
                "descart",
                "siga",
                "obedeç",
                "obedec",
                "deixe",
            ],
            &[
                "instruç",
                "instruc",
                "orientaç",
                "orientac",
                "ordens",
                "regras",
                "diretriz",
                "diretiva",
                "comandos",
                "indicaç",
                "tudo",
            ],
        ],
    ),
    // Italian
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:ignora(?:te)?|ignori|dimentica(?:te)?|dimentichi|trascura(?:te)?|tralascia(?:te)?|non\s+(?:seguire|segui|obbedire|rispettare|tener\s+conto)|lascia\s+perdere|scordati)\s+(?:(?:di|delle|dei|degli)\s+)?",
            r"(?:(?:tutte\s+le|tutti\s+(?:i|gli)|le\s+tue|tue|le\s+sue|le\s+vostre)\s+",
            words!(2),
            r"(?:istruzioni|indicazioni|regole|direttive|ordini|consegne|linee\s+guida|prompt|comandi)",
            r"|(?:le|queste|quelle|gli|i)\s+",
            words!(1),
            r"(?:istruzioni|indicazioni|regole|direttive|ordini|consegne|linee\s+guida|prompt|comandi)\s+",
            words!(1),
            r"(?:precedenti|anteriori|originali|iniziali|di\s+sistema|del\s+sistema|di\s+prima|ricevute|sopra)",
            r"|tutto\s+(?:quello|ciò|cio)\s+che\s+ti\s+",
            words!(2),
            r"(?:detto|dett[ie]|ordinato|chiesto))"
        ),
        &[
            &[
                "ignor",
                "dimentic",
                "trascura",
                "tralascia",
                "segui",
                "obbedire",
                "rispettare",
                "tener",
                "perdere",
                "scordati",
            ],
            &[
                "istruzioni",
                "indicazioni",
                "regole",
                "direttive",
                "ordini",
                "consegne",
                "linee",
                "prompt",
                "comandi",
                "tutto",
            ],
        ],
    ),
    // Russian
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:(?:про)?игнорируй(?:те)?|забудь(?:те)?|отбрось(?:те)?|отмени(?:те)?|пренебреги(?:те)?|не\s+(?:следуй(?:те)?|слушай(?:те)?|выполняй(?:те)?|соблюдай(?:те)?|подчиняйся|принимай(?:те)?\s+во\s+внимание|обращай(?:те)?\s+внимания\s+на))\s+",
            words!(2),
            r"(?:(?:все|всё|свои|твои|ваши|предыдущ[а-яё]{0,4}|прежн[а-яё]{0,4}|предшествующ[а-яё]{0,4}|изначальн[а-яё]{0,4}|первоначальн[а-яё]{0,4}|системн[а-яё]{0,4}|стар[а-яё]{0,4}|ранее\s+(?:данн|полученн)[а-яё]{0,4})\s+",
            words!(1),
            r"(?:инструкци|указани|правил|команд|приказ|директив|промпт|установк|распоряжени)",
            r"|(?:всё|все),?\s+что\s+(?:тебе|вам)\s+",
            words!(2),
            r"(?:говорили|сказали|велели|приказали|поручили|писали))"
        ),
        &[
            &[
                "игнорир",
                "забудь",
                "отбрось",
                "отмени",
                "пренебреги",
                "следуй",
                "слушай",
                "выполняй",
                "соблюдай",
                "подчиняйся",
                "принимай",
                "обращай",
            ],
            &[
                "инструкци",
                "указани",
                "правил",
                "команд",
                "приказ",
                "директив",
                "промпт",
                "установк",
                "распоряжени",
                "что",
            ],
        ],
    ),
    // Chinese
    ure(
        r"(?:忽略|无视|無視|忽视|忽視|不要理会|不要理會|不要理睬|别理会|别管|忘记|忘記|忘掉|忘了|不要遵守|不要遵循|不再遵守|不必遵守|放弃|抛弃|丢弃)[^\n。！？]{0,12}?(?:之前|以前|先前|此前|上面|上述|以上|前面|原来|原有|原先|原始|最初|系统|系統|所有|全部|一切|你的)[^\n。！？]{0,8}?(?:指令|指示|说明|說明|规则|規則|提示词|提示|命令|要求|设定|設定|约束|限制)",
        &[
            &[
                "忽略", "无视", "無視", "忽视", "忽視", "理会", "理會", "理睬", "别管", "忘记",
                "忘記", "忘掉", "忘了", "遵守", "遵循", "放弃", "抛弃", "丢弃",
            ],
            &[
                "指令", "指示", "说明", "說明", "规则", "規則", "提示", "命令", "要求", "设定",
                "設定", "约束", "限制",
            ],
        ],
    ),
    // Japanese
    ure(
        r"(?:これまで|今まで|以前|前|上記|上|先ほど|さっき|最初|元|システム|すべて|全て|全部|既存)の?[^\n。！？]{0,10}?(?:指示|命令|ルール|規則|指令|プロンプト|設定|制約|指図)[^\n。！？]{0,12}?(?:無視|忘れ|従わな|従わず|破棄|取り消|撤回|なかったこと)",
        &[
            &[
                "指示",
                "命令",
                "ルール",
                "規則",
                "指令",
                "プロンプト",
                "設定",
                "制約",
                "指図",
            ],
            &["無視", "忘れ", "従わ", "破棄", "取り消", "撤回", "なかった"],
        ],
    ),
];

/// "From now on you are", "you are now", "your new role is", by language.
pub(super) static NEW: &[Re] = &nl_pl::NEW_ALL;
const BASE_NEW: &[Re] = &[
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:(?:a\s+partir\s+de\s+(?:ahora|hoy|este\s+momento)|desde\s+ahora|de\s+ahora\s+en\s+adelante|en\s+adelante)\s*,?\s*(?:tú\s+|tu\s+|usted\s+)?(?:eres|serás|seras|vas\s+a\s+ser|actuarás|actuaras|debes|obedecerás|obedeceras|ya\s+no)",
            r"|ahora\s+(?:tú\s+|tu\s+)?eres|tu\s+(?:nuevo|verdadero)\s+(?:rol|papel|propósito|objetivo)\s+es|tus\s+(?:nuevas|verdaderas)\s+instrucciones\s+son)",
            we!()
        ),
        &[&[
            "ahora",
            "adelante",
            "nuevo",
            "verdadero",
            "nuevas",
            "verdaderas",
        ]],
    ),
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:(?:à\s+partir\s+de\s+maintenant|a\s+partir\s+de\s+maintenant|dorénavant|dorenavant|désormais|desormais|dès\s+maintenant|à\s+présent|maintenant)\s*,?\s*(?:tu\s+es|tu\s+seras|vous\s+êtes|vous\s+etes|vous\s+serez|tu\s+dois|vous\s+devez|tu\s+obéis|tu\s+n'as\s+plus)",
            r"|(?:tu\s+es|vous\s+êtes|vous\s+etes)\s+(?:maintenant|désormais|dorénavant|à\s+présent)\s+(?:un|une|le|la|en\s+mode|dan|libre|sans)",
            r"|ton\s+(?:nouveau|vrai|véritable)\s+rôle\s+est|tes\s+(?:nouvelles|vraies)\s+instructions\s+sont)",
            we!()
        ),
        &[&[
            "maintenant",
            "dorénavant",
            "dorenavant",
            "désormais",
            "desormais",
            "présent",
            "rôle",
            "instructions",
        ]],
    ),
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:(?:ab\s+jetzt|ab\s+sofort|ab\s+heute|von\s+nun\s+an|fortan|nunmehr)\s*,?\s*(?:bist\s+du|sind\s+sie|wirst\s+du|musst\s+du|gehorchst\s+du|hast\s+du\s+keine)",
            r"|(?:du\s+bist|sie\s+sind)\s+(?:jetzt|nun|ab\s+sofort|ab\s+jetzt|ab\s+heute|von\s+nun\s+an)\s+(?:ein|eine|der|die|das|dan|im|in|frei|ohne|kein|keine)",
            r"|deine\s+(?:neue|wahre|eigentliche)\s+(?:rolle|aufgabe|identität)\s+ist)",
            we!()
        ),
        &[&[
            "jetzt",
            "sofort",
            "heute",
            "nun",
            "fortan",
            "nunmehr",
            "rolle",
            "aufgabe",
            "identität",
        ]],
    ),
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:(?:a\s+partir\s+de\s+(?:agora|hoje)|de\s+agora\s+em\s+diante|daqui\s+(?:para|pra)\s+(?:frente|diante)|doravante)\s*,?\s*(?:você\s+|voce\s+|tu\s+)?(?:é|e|és|será|sera|vai\s+ser|deve|deves|obedecerá|não\s+tem|nao\s+tem)",
            r"|agora\s+(?:você|voce|tu)\s+(?:é|e|és)|(?:seu|teu)\s+(?:novo|verdadeiro)\s+(?:papel|função|funcao|objetivo)\s+é|suas\s+(?:novas|verdadeiras)\s+instruções\s+são)",
            we!()
        ),
        &[&[
            "agora",
            "hoje",
            "diante",
            "frente",
            "doravante",
            "novo",
            "verdadeiro",
            "novas",
            "verdadeiras",
        ]],
    ),
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:(?:da\s+(?:ora|adesso|oggi)\s+in\s+(?:poi|avanti)|d'ora\s+in\s+(?:poi|avanti)|d'ora\s+innanzi)\s*,?\s*(?:tu\s+)?(?:sei|sarai|devi|obbedirai|non\s+hai\s+più)",
            r"|(?:ora|adesso)\s+(?:tu\s+)?sei\s+(?:un|una|il|la|lo|in\s+modalità|dan|libero|senza)",
            r"|il\s+tuo\s+(?:nuovo|vero)\s+(?:ruolo|compito|obiettivo)\s+è|le\s+tue\s+(?:nuove|vere)\s+istruzioni\s+sono)",
            we!()
        ),
        &[&[
            "ora", "adesso", "oggi", "innanzi", "nuovo", "vero", "nuove", "vere",
        ]],
    ),
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:(?:отныне|с\s+этого\s+момента|с\s+этой\s+минуты|с\s+сегодняшнего\s+дня|впредь)\s*,?\s*(?:ты|вы)",
            r"|теперь\s*,?\s*(?:ты|вы)\s*(?:[—–-]|будешь|являешься|являетесь|должен|должна|должны|обязан|работаешь\s+без|без\s+ограничений|не\s+связан)",
            r"|(?:твоя|ваша)\s+(?:новая|настоящая)\s+(?:роль|задача|личность)|(?:твои|ваши)\s+новые\s+инструкции)",
            r#"(?:$|[\s.,;:!?—–-])"#
        ),
        &[&[
            "отныне",
            "момента",
            "минуты",
            "сегодняшнего",
            "впредь",
            "теперь",
            "новая",
            "настоящая",
            "новые",
        ]],
    ),
    ure(
        r"(?:(?:从现在开始|从现在起|從現在開始|從現在起|从今以后|從今以後|从今天起|今后|此后|自此|接下来)[，,、\s]*(?:你|您)(?:是|将是|將是|就是|扮演|要|必须|必須|只|不再|将|將)|(?:你|您)现在(?:是|扮演|处于|進入|进入)|你現在(?:是|扮演|處於)|你的新(?:角色|身份|任务|任務|指令|设定|設定)是)",
        &[
            &["你", "您"],
            &[
                "现在",
                "現在",
                "今后",
                "今以後",
                "今天",
                "此后",
                "自此",
                "接下来",
                "新",
            ],
        ],
    ),
    ure(
        r"(?:(?:今から|これから|今後|以後|この瞬間から|今日から)[、,\s]*(?:あなた|君|きみ|お前|おまえ)は|(?:あなた|君|きみ|お前)は(?:今から|これから|今後|もう|今)|あなたの新しい(?:役割|任務|指示|設定)は)",
        &[
            &["あなた", "君", "きみ", "お前", "おまえ"],
            &["今", "これから", "以後", "瞬間", "新しい"],
        ],
    ),
];

/// "Do not tell the user", "without the user knowing", by language.
pub(super) static HIDE: &[Re] = &nl_pl::HIDE_ALL;
const BASE_HIDE: &[Re] = &[
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:no\s+(?:se\s+lo\s+|le\s+|les\s+|lo\s+)?(?:digas|diga|cuentes|cuente|menciones|mencione|reveles|revele|informes|informe|comentes|muestres)\s+(?:nada\s+)?",
            words!(4),
            r"(?:al|a\s+los|a\s+la|a\s+las)\s+usuari[oa]s?",
            r"|sin\s+que\s+(?:el|la|los)\s+usuari[oa]s?\s+(?:lo\s+)?(?:sepa|sepan|note|noten|se\s+entere|descubra)",
            r"|no\s+(?:dejes|permitas)\s+que\s+(?:el|la)\s+usuari[oa]\s+(?:lo\s+)?(?:sepa|vea|descubra|se\s+entere)",
            r"|oc[uú]lta(?:le|selo|lo)?\s+",
            words!(3),
            r"al\s+usuario)"
        ),
        &[&["usuari"]],
    ),
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:ne\s+(?:le\s+|lui\s+|leur\s+|rien\s+)?(?:dis|dites|mentionne[zs]?|révèle[zs]?|revele[zs]?|raconte[zs]?|signale[zs]?|montre[zs]?)\s+",
            words!(5),
            r"(?:à\s+l'|a\s+l'|aux\s+)utilisat(?:eur|rice)s?",
            r"|sans\s+que\s+l'utilisat(?:eur|rice)\s+(?:ne\s+)?(?:le\s+)?(?:sache|remarque|s'en\s+aperçoive|voie|découvre)",
            r"|cache[zr]?\s+",
            words!(3),
            r"(?:à|a)\s+l'utilisat(?:eur|rice))"
        ),
        &[&["utilisat"]],
    ),
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:(?:sag|sage|sagen\s+sie|erzähl|erzähle|verrate|verraten\s+sie|zeige|zeig)\s+(?:dem|der|den)\s+(?:benutzer|nutzer|anwender|user)(?:in|innen|n)?\s+",
            words!(3),
            r"(?:nichts|nicht|kein|keine)",
            r"|ohne\s+dass\s+(?:der|die)\s+(?:benutzer|nutzer|anwender|user)(?:in)?\s+",
            words!(2),
            r"(?:merkt|weiß|erfährt|bemerkt|mitbekommt)",
            r"|(?:verschweige|verheimliche|verberge)\s+",
            words!(3),
            r"(?:vor\s+)?(?:dem|der)\s+(?:benutzer|nutzer|anwender|user)",
            r"|(?:der|die)\s+(?:benutzer|nutzer|anwender|user)(?:in)?\s+darf\s+",
            words!(2),
            r"(?:nie|nicht|niemals)\s+",
            words!(2),
            r"(?:erfahren|wissen|merken|bemerken))"
        ),
        &[
            &["benutzer", "nutzer", "anwender", "user"],
            &[
                "nicht",
                "kein",
                "ohne",
                "verschweig",
                "verheimlich",
                "verberg",
                "darf",
            ],
        ],
    ),
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:n[ãa]o\s+(?:conte|diga|mencione|revele|informe|fale|mostre|contes|digas)\s+(?:nada\s+)?",
            words!(4),
            r"(?:ao|à|aos|às|para\s+o|para\s+a)\s+(?:usuári|usuari|utilizador)[oa]?s?",
            r"|sem\s+que\s+o\s+(?:usuário|usuario|utilizador)\s+",
            words!(1),
            r"(?:saiba|perceba|note|descubra)",
            r"|n[ãa]o\s+deixe\s+(?:que\s+)?o\s+(?:usuário|usuario|utilizador)\s+",
            words!(1),
            r"(?:saber|saiba|perceber|descobrir|ver)",
            r"|(?:esconda|oculte)\s+",
            words!(3),
            r"d[oa]\s+(?:usuário|usuario|utilizador))"
        ),
        &[&["usuári", "usuari", "utilizador"]],
    ),
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:non\s+(?:dire|dirlo|dirle|dirgli|rivelare|menzionare|raccontare|comunicare|mostrare|riferire)\s+(?:niente\s+|nulla\s+)?",
            words!(4),
            r"(?:all'|agli\s+|alle\s+)utent[ei]",
            r"|senza\s+che\s+l'utente\s+(?:lo\s+)?(?:sappia|se\s+ne\s+accorga|noti|scopra)",
            r"|(?:nascondi|nascondete)\s+",
            words!(3),
            r"all'utente)"
        ),
        &[&["utent"]],
    ),
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:не\s+(?:говори|говорите|сообщай|сообщайте|рассказывай|рассказывайте|показывай|упоминай|раскрывай|выдавай)\s+",
            words!(3),
            r"пользовател[а-яё]{0,4}",
            r"|без\s+ведома\s+пользовател|(?:чтобы|так\s+чтобы)\s+пользовател[а-яё]{0,4}\s+не\s+(?:узнал|заметил|понял|догадался)",
            r"|скр(?:ой|ывай)(?:те)?\s+",
            words!(3),
            r"от\s+пользовател)"
        ),
        &[&["пользовател"]],
    ),
    ure(
        r"(?:(?:不要|别|別|不许|不准|切勿|不可以|不能)(?:告诉|告訴|告知|透露给|透露給|通知|让|讓)(?:用户|用戶|使用者)|(?:瞒着|瞞著|背着|背著)(?:用户|用戶|使用者)|对(?:用户|使用者)保密)",
        &[&["用户", "用戶", "使用者"]],
    ),
    ure(
        r"ユーザー?(?:に|には|へ)[^\n。]{0,10}?(?:言わない|伝えない|知らせない|教えない|話さない|報告しない|内緒|秘密|気づかれない|知られない|バレない)",
        &[&["ユーザ"]],
    ),
];

/// "Send the API key to …", by language.
pub(super) static EXFIL: &[Re] = &nl_pl::EXFIL_ALL;
const BASE_EXFIL: &[Re] = &[
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:env[ií]a|envíe|envie|envíen|manda|mande|sube|suba|reenvía|reenvia|publica|comparte|pega|transmite|filtra)\s+",
            words!(3),
            r"(?:clave|claves|contraseña|contraseñas|credenciales|token|tokens|secreto|secretos|llave)[^\n]{0,60}?",
            dest!()
        ),
        &[
            &[
                "env", "mand", "sub", "public", "compart", "pega", "transmit", "filtra",
            ],
            &[
                "clave",
                "contraseña",
                "credencial",
                "token",
                "secreto",
                "llave",
            ],
            DEST,
        ],
    ),
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:envoie[zs]?|envoyer|transmets|transmettez|poste[zs]?|colle[zs]?|partage[zs]?|fai(?:s|tes)\s+parvenir)\s+",
            words!(3),
            r"(?:clé|clés|cle|mot\s+de\s+passe|mots\s+de\s+passe|identifiants|jeton|jetons|token|secret|secrets)[^\n]{0,60}?",
            dest!()
        ),
        &[
            &["envo", "transmet", "poste", "colle", "partage", "parvenir"],
            &[
                "clé",
                "cle",
                "passe",
                "identifiants",
                "jeton",
                "token",
                "secret",
            ],
            DEST,
        ],
    ),
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:sende|sendet|senden\s+sie|schicke|schick|schicken\s+sie|übermittle|lade|poste|teile|kopiere)\s+",
            words!(3),
            r"(?:[^\s.,;:!?]{0,12}schlüssel|passwort|passwörter|kennwort|zugangsdaten|anmeldedaten|token|tokens|geheimnis|secret|api-key|apikey)[^\n]{0,60}?",
            dest!()
        ),
        &[
            &[
                "send",
                "schick",
                "übermittle",
                "lade",
                "poste",
                "teile",
                "kopiere",
            ],
            &[
                "schlüssel",
                "passw",
                "kennwort",
                "zugangsdaten",
                "anmeldedaten",
                "token",
                "geheimnis",
                "secret",
                "api-key",
                "apikey",
            ],
            DEST,
        ],
    ),
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:envie|envia|mande|manda|suba|publique|cole|compartilhe|transmita|encaminhe)\s+",
            words!(3),
            r"(?:chave|chaves|senha|senhas|credenciais|token|tokens|segredo|segredos)[^\n]{0,60}?",
            dest!()
        ),
        &[
            &[
                "envi",
                "mand",
                "suba",
                "publique",
                "cole",
                "compartilhe",
                "transmita",
                "encaminhe",
            ],
            &["chave", "senha", "credenciais", "token", "segredo"],
            DEST,
        ],
    ),
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:invia|inviate|manda|mandate|carica|pubblica|incolla|condividi|trasmetti|inoltra)\s+",
            words!(3),
            r"(?:chiave|chiavi|password|credenziali|token|segreto|segreti)[^\n]{0,60}?",
            dest!()
        ),
        &[
            &[
                "invia",
                "manda",
                "carica",
                "pubblica",
                "incolla",
                "condividi",
                "trasmetti",
                "inoltra",
            ],
            &["chiav", "password", "credenziali", "token", "segret"],
            DEST,
        ],
    ),
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:отправь(?:те)?|пришли(?:те)?|перешли(?:те)?|скинь(?:те)?|загрузи(?:те)?|выложи(?:те)?|передай(?:те)?|вышли(?:те)?)\s+",
            words!(3),
            r"(?:[^\s.,;:!?]{0,6}ключ|парол|токен|секрет|учётн[а-яё]{0,4}\s+данн|учетн[а-яё]{0,4}\s+данн|креды)[^\n]{0,60}?",
            dest!()
        ),
        &[
            &[
                "отправ",
                "пришли",
                "перешли",
                "скинь",
                "загрузи",
                "выложи",
                "передай",
                "вышли",
            ],
            &["ключ", "парол", "токен", "секрет", "данн", "креды"],
            DEST,
        ],
    ),
    ure(
        concat!(
            r"(?i)(?:密钥|密鑰|秘钥|密码|密碼|令牌|凭证|憑證|凭据|token|口令)[^\n。]{0,12}?(?:发送|發送|发给|發給|发到|發到|上传|上傳|传到|傳到|转发|轉發|提交)[^\n。]{0,16}?",
            r"(?:https?://|[a-z0-9._%+-]+@[a-z0-9-]+\.|[a-z0-9-]+\.(?:com|net|org|io|xyz|cn|ru)|外部|第三方)"
        ),
        &[
            &[
                "密钥", "密鑰", "秘钥", "密码", "密碼", "令牌", "凭证", "憑證", "凭据", "token",
                "口令",
            ],
            &[
                "发", "發", "上传", "上傳", "传到", "傳到", "转发", "轉發", "提交",
            ],
        ],
    ),
    ure(
        concat!(
            r"(?i)(?:api\s*キー|キー|パスワード|トークン|認証情報|秘密鍵|シークレット)[^\n。]{0,12}?",
            r"(?:https?://|[a-z0-9._%+-]+@[a-z0-9-]+\.|[a-z0-9-]+\.(?:com|net|org|io|xyz|jp)|外部|第三者)[^\n。]{0,30}?(?:送信|送って|送れ|送る|アップロード|転送|共有|投稿)"
        ),
        &[
            &[
                "キー",
                "パスワード",
                "トークン",
                "認証情報",
                "秘密鍵",
                "シークレット",
            ],
            &["送", "アップロード", "転送", "共有", "投稿"],
        ],
    ),
];
