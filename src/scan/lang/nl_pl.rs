//! Dutch and Polish, the same four intents as the other languages of `lang.rs`: ignore the
//! previous instructions, from now on you are, do not tell the user, send the key to a
//! destination. The same rules hold: Unicode-mode regexes, no `\b`, no `\p{…}`, bounded fillers.

use super::super::Re;
use super::ure;

/// `a`, then `b` (`N` is the sum of their lengths).
const fn join<const N: usize>(a: &[Re], b: &[Re]) -> [Re; N] {
    let mut out = [b[0]; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < a.len() { a[i] } else { b[i - a.len()] };
        i += 1;
    }
    out
}

/// Each intent's regexes: the other languages', then these.
pub(super) static IGNORE_ALL: [Re; super::BASE_IGNORE.len() + IGNORE.len()] =
    join(super::BASE_IGNORE, &IGNORE);
pub(super) static NEW_ALL: [Re; super::BASE_NEW.len() + NEW.len()] = join(super::BASE_NEW, &NEW);
pub(super) static HIDE_ALL: [Re; super::BASE_HIDE.len() + HIDE.len()] =
    join(super::BASE_HIDE, &HIDE);
pub(super) static EXFIL_ALL: [Re; super::BASE_EXFIL.len() + EXFIL.len()] =
    join(super::BASE_EXFIL, &EXFIL);

/// "Ignore the previous instructions".
pub(super) const IGNORE: [Re; 2] = [
    // Dutch
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:negeer|negeren|vergeet|verwaarloos|let\s+niet\s+(?:meer\s+)?op|volg\s+(?:niet\s+(?:meer\s+)?|geen\s+)|houd\s+je\s+niet\s+(?:meer\s+)?aan|trek\s+je\s+niets\s+aan\s+van)\s*",
            words!(2),
            r"(?:(?:alle|al\s+je|je|jouw|uw|de|het)\s+)?",
            r"(?:(?:vorige|eerdere|voorgaande|bovenstaande|oorspronkelijke|oude|originele|huidige|bestaande|interne)\s+|(?:alle|je|jouw|uw)\s+)",
            words!(1),
            r"(?:instructies|instructie|regels|richtlijnen|opdrachten|aanwijzingen|systeemprompt|prompts?|beperkingen|afspraken)",
            we!()
        ),
        &[
            &[
                "negeer",
                "negeren",
                "vergeet",
                "verwaarloos",
                "let",
                "volg",
                "houd",
                "trek",
            ],
            &[
                "instructie",
                "regels",
                "richtlijnen",
                "opdrachten",
                "aanwijzingen",
                "prompt",
                "beperkingen",
                "afspraken",
            ],
        ],
    ),
    // Polish
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:zignoruj(?:cie)?|ignoruj(?:cie)?|zapomnij(?:cie)?\s+o|pomiń|pomin|nie\s+przestrzegaj|nie\s+stosuj\s+się\s+do|nie\s+słuchaj|odrzuć|porzuć)\s+",
            words!(2),
            r"(?:poprzedni|wcześniejsz|wczesniejsz|powyższ|powyzsz|dotychczasow|pierwotn|oryginaln|wszystki|swoi|swoje|twoi|twoje)[^\s.,;:!?]{0,4}\s+",
            words!(1),
            r"(?:instrukcj|zasad|reguł|regul|poleceń|polecen|wytyczn|prompt|ograniczeń|ograniczen)[^\s.,;:!?]{0,4}",
            we!()
        ),
        &[
            &[
                "ignoruj",
                "zapomnij",
                "pomiń",
                "pomin",
                "przestrzegaj",
                "stosuj",
                "słuchaj",
                "odrzuć",
                "porzuć",
            ],
            &[
                "instrukcj",
                "zasad",
                "reguł",
                "regul",
                "poleceń",
                "polecen",
                "wytyczn",
                "prompt",
                "ograniczeń",
                "ograniczen",
            ],
        ],
    ),
];

/// "From now on you are".
pub(super) const NEW: [Re; 2] = [
    // Dutch
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:(?:vanaf\s+nu|van\s+nu\s+af(?:\s+aan)?|voortaan|vanaf\s+heden|vanaf\s+dit\s+moment)\s+(?:ben\s+(?:je|jij)|bent\s+u|speel\s+je|gedraag\s+je\s+je|handel\s+je|luister\s+je|volg\s+je)",
            r"|(?:je|jij)\s+bent\s+(?:nu|voortaan|vanaf\s+nu)\s+(?:een|de|het)\s+",
            words!(2),
            r"(?:zonder\s+(?:beperkingen|regels|filters|grenzen)|onbeperkt|ongefilterd|ongecensureerd)",
            r")",
            we!()
        ),
        &[&["vanaf", "van nu", "voortaan", "bent"]],
    ),
    // Polish
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:(?:od\s+teraz|od\s+tej\s+chwili|od\s+dziś|od\s+dzis|odtąd|odtad|teraz)\s+(?:jesteś|jestes|będziesz|bedziesz|działasz\s+jako|dzialasz\s+jako|udajesz|wykonujesz\s+tylko)",
            r"|(?:jesteś|jestes)\s+(?:teraz|od\s+teraz)\s+)"
        ),
        &[&[
            "jesteś",
            "jestes",
            "będziesz",
            "bedziesz",
            "działasz",
            "dzialasz",
            "udajesz",
            "wykonujesz",
        ]],
    ),
];

/// "Do not tell the user".
pub(super) const HIDE: [Re; 2] = [
    // Dutch
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:(?:vertel|zeg|meld)\s+(?:het\s+|dit\s+|dat\s+)?(?:aan\s+)?de\s+gebruiker\s+",
            words!(2),
            r"(?:niets|niks|niet|nooit)",
            r"|(?:zeg|vertel|meld)\s+(?:niets|niks|nooit\s+iets)\s+",
            words!(2),
            r"(?:tegen|aan)\s+de\s+gebruiker",
            r"|(?:houd|hou)\s+(?:dit|dat|het)\s+(?:geheim|verborgen)\s+(?:voor|tegen)\s+de\s+gebruiker",
            r"|verberg\s+(?:dit|dat|het|alles)\s+voor\s+de\s+gebruiker",
            r"|zonder\s+dat\s+de\s+gebruiker\s+(?:het\s+|er\s+iets\s+van\s+)?(?:weet|merkt|ziet))",
            we!()
        ),
        &[&["gebruiker"]],
    ),
    // Polish
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:nie\s+(?:mów|mow|informuj|wspominaj|pokazuj|zdradzaj|mówcie|powiadamiaj|ujawniaj)\s+",
            words!(3),
            r"użytkownik|ukryj\s+",
            words!(2),
            r"przed\s+użytkownik|bez\s+wiedzy\s+użytkownik|w\s+tajemnicy\s+przed\s+użytkownik)"
        ),
        &[&["użytkownik"]],
    ),
];

/// "Send the key to a destination".
pub(super) const EXFIL: [Re; 2] = [
    // Dutch
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:stuur|verstuur|zend|verzend|mail|e-mail|upload|plak|deel|post)\s+",
            words!(3),
            r"(?:api-?sleutels?|sleutels?|wachtwoorden|wachtwoord|tokens?|geheimen|inloggegevens|credentials|toegangscodes?)[^\n]{0,60}?",
            dest!()
        ),
        &[
            &["stuur", "zend", "mail", "upload", "plak", "deel", "post"],
            &[
                "sleutel",
                "wachtwoord",
                "token",
                "geheimen",
                "inloggegevens",
                "credentials",
                "toegangscode",
            ],
            super::DEST,
        ],
    ),
    // Polish
    ure(
        concat!(
            "(?i)",
            ws!(),
            r"(?:wyślij|wyslij|prześlij|przeslij|wklej|udostępnij|udostepnij|wrzuć|wrzuc|przekaż|przekaz|załaduj|wgraj)\s+",
            words!(3),
            r"(?:klucz|hasł|hasl|token|sekret|dane\s+logowania|poświadczeni|poswiadczeni)[^\n]{0,60}?",
            dest!()
        ),
        &[
            &[
                "wyślij",
                "wyslij",
                "prześlij",
                "przeslij",
                "wklej",
                "udostępnij",
                "udostepnij",
                "wrzuć",
                "wrzuc",
                "przekaż",
                "przekaz",
                "załaduj",
                "wgraj",
            ],
            &[
                "klucz",
                "hasł",
                "hasl",
                "token",
                "sekret",
                "logowania",
                "poświadczeni",
                "poswiadczeni",
            ],
            super::DEST,
        ],
    ),
];
