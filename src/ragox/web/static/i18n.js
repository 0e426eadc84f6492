// The pages' own words in the reader's language (English, German, Russian): the one
// named by ?lang= in the address, else the first of the browser's preferred languages
// that ragox speaks, else English. Only the interface is translated here: document
// text, quotes and answers are shown as they are (an answer says itself which
// language it is in).

export const LANGUAGES = ["en", "de", "ru"];

/** The interface language for an address's ?lang= and the browser's preferences. */
export function chooseLanguage(requested, preferred) {
  for (const tag of [requested, ...(preferred || [])]) {
    const base = String(tag || "").toLowerCase().split(/[-_]/)[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

const asked = new URLSearchParams(location.search).get("lang");
export const LANG = chooseLanguage(asked, navigator.languages || [navigator.language]);
/** Whether the address chose the language (then links to our other pages keep it). */
const CHOSEN = LANGUAGES.includes(String(asked || "").toLowerCase().split(/[-_]/)[0]);

// One entry per phrase, every language side by side; {name} is filled in by t().
// An entry with one, few, many and other forms is a count (Intl.PluralRules picks).
export const WORDS = {
  // shared
  "nav.sections": { en: "Sections", de: "Bereiche", ru: "Разделы" },
  "nav.ask": { en: "Ask", de: "Fragen", ru: "Вопросы" },
  "nav.documents": { en: "Documents", de: "Dokumente", ru: "Документы" },
  "revision": { en: "revision {revision}", de: "Revision {revision}", ru: "редакция {revision}" },
  "page": { en: "page {label}", de: "Seite {label}", ru: "стр. {label}" },
  "pages": { en: "pages {first}–{last}", de: "Seiten {first}–{last}", ru: "стр. {first}–{last}" },
  "status.RESOLVED": { en: "Verified", de: "Überprüft", ru: "Проверено" },
  "status.ACCESS_DENIED": { en: "No access", de: "Kein Zugriff", ru: "Нет доступа" },
  "status.SOURCE_CHANGED": { en: "Source changed", de: "Quelle geändert", ru: "Источник изменён" },
  "status.AMBIGUOUS": { en: "Ambiguous", de: "Mehrdeutig", ru: "Неоднозначно" },
  "status.UNCHECKED": { en: "Not re-checked", de: "Nicht erneut geprüft", ru: "Не перепроверено" },
  // session
  "session.signed-in": { en: "Signed in as {name}", de: "Angemeldet als {name}", ru: "Вы вошли как {name}" },
  "session.operator": { en: " (operator)", de: " (Betreiber)", ru: " (оператор)" },
  "session.forget": { en: "Forget key", de: "Schlüssel vergessen", ru: "Забыть ключ" },
  "session.key": { en: "API key", de: "API-Schlüssel", ru: "API-ключ" },
  "session.sign-in": { en: "Sign in", de: "Anmelden", ru: "Войти" },
  "session.refused": { en: "That key was refused.", de: "Dieser Schlüssel wurde abgelehnt.", ru: "Этот ключ отклонён." },
  "session.hint": {
    en: "Sign in with a ragox API key (an operator makes one with `ragox keys create`).",
    de: "Melden Sie sich mit einem ragox-API-Schlüssel an (ein Betreiber erstellt ihn mit `ragox keys create`).",
    ru: "Войдите с API-ключом ragox (оператор создаёт его командой `ragox keys create`).",
  },
  // the ask page
  "ask.title": { en: "ragox — ask", de: "ragox — fragen", ru: "ragox — вопросы" },
  "ask.heading": { en: "Ask your documents", de: "Fragen Sie Ihre Dokumente", ru: "Спросите свои документы" },
  "ask.conversation": { en: "Conversation", de: "Unterhaltung", ru: "Беседа" },
  "ask.question": { en: "Question", de: "Frage", ru: "Вопрос" },
  "ask.submit": { en: "Ask", de: "Fragen", ru: "Спросить" },
  "ask.answer-in": { en: "Answer in", de: "Antwort auf", ru: "Язык ответа" },
  "ask.question-language": { en: "the question's language", de: "der Sprache der Frage", ru: "язык вопроса" },
  "ask.passage": { en: "Cited passage", de: "Zitierte Stelle", ru: "Цитируемый фрагмент" },
  "ask.citations": { en: "Citations", de: "Belege", ru: "Источники" },
  "ask.copy": { en: "Copy link", de: "Link kopieren", ru: "Копировать ссылку" },
  "ask.copy-label": { en: "Copy link to {source}", de: "Link zu {source} kopieren", ru: "Копировать ссылку на {source}" },
  "ask.copy-label-quote": {
    en: "Copy link to {source}, quote {number}",
    de: "Link zu {source} kopieren, Zitat {number}",
    ru: "Копировать ссылку на {source}, цитата {number}",
  },
  "ask.copied": { en: "Link copied", de: "Link kopiert", ru: "Ссылка скопирована" },
  "ask.also-in": { en: "Also in {places}", de: "Auch in {places}", ru: "Также в {places}" },
  "ask.translation": {
    en: "Translation ({languages}) by {translator}, not the cited text:",
    de: "Übersetzung ({languages}) von {translator}, nicht der zitierte Text:",
    ru: "Перевод ({languages}), выполнил {translator}; это не цитируемый текст:",
  },
  "ask.searching": { en: "Searching your documents…", de: "Ihre Dokumente werden durchsucht…", ru: "Поиск по вашим документам…" },
  "ask.sign-in-first": {
    en: "Sign in with an API key first (above).",
    de: "Melden Sie sich zuerst mit einem API-Schlüssel an (oben).",
    ru: "Сначала войдите с API-ключом (вверху).",
  },
  "ask.key-refused": {
    en: "The API key was refused: sign in again.",
    de: "Der API-Schlüssel wurde abgelehnt: Melden Sie sich erneut an.",
    ru: "API-ключ отклонён: войдите снова.",
  },
  "ask.failed": {
    en: "The question could not be answered.",
    de: "Die Frage konnte nicht beantwortet werden.",
    ru: "На вопрос не удалось ответить.",
  },
  // the viewer
  "viewer.title": { en: "ragox — cited passage", de: "ragox — zitierte Stelle", ru: "ragox — цитируемый фрагмент" },
  "viewer.heading": { en: "Cited passage", de: "Zitierte Stelle", ru: "Цитируемый фрагмент" },
  "viewer.open": { en: "Open", de: "Öffnen", ru: "Открыть" },
  "viewer.context-column": { en: "Column header of the cited cell", de: "Spaltenkopf der zitierten Zelle", ru: "Заголовок столбца цитируемой ячейки" },
  "viewer.context-row": { en: "Row header of the cited cell", de: "Zeilenkopf der zitierten Zelle", ru: "Заголовок строки цитируемой ячейки" },
  "viewer.context-group": { en: "Group header of the cited cell", de: "Gruppenkopf der zitierten Zelle", ru: "Заголовок группы цитируемой ячейки" },
  "viewer.pages": { en: "Pages", de: "Seiten", ru: "Страницы" },
  "viewer.previous-page": { en: "◀ Previous page", de: "◀ Vorherige Seite", ru: "◀ Предыдущая страница" },
  "viewer.next-page": { en: "Next page ▶", de: "Nächste Seite ▶", ru: "Следующая страница ▶" },
  "viewer.zoom": { en: "Zoom to passage", de: "Auf die Stelle zoomen", ru: "Приблизить фрагмент" },
  "viewer.original": { en: "Original file", de: "Originaldatei", ru: "Исходный файл" },
  "viewer.ocr": { en: "Recognized by OCR.", de: "Per OCR erkannt.", ru: "Распознано OCR." },
  "viewer.ocr-note": {
    en: "This page is a scanned image; its text was recognized by OCR and may differ from the page. The frame marks the block that holds the passage, not its exact characters.",
    de: "Diese Seite ist ein gescanntes Bild; ihr Text wurde per OCR erkannt und kann von der Seite abweichen. Der Rahmen markiert den Block, der die Stelle enthält, nicht ihre genauen Zeichen.",
    ru: "Эта страница — отсканированное изображение; её текст распознан OCR и может отличаться от страницы. Рамка отмечает блок, содержащий фрагмент, а не его точные символы.",
  },
  "viewer.quoted": {
    en: "The cited text (verified), readable at this size; the page follows.",
    de: "Der zitierte Text (überprüft), in lesbarer Größe; die Seite folgt.",
    ru: "Цитируемый текст (проверен) в читаемом размере; ниже — страница.",
  },
  "viewer.document": { en: "Document text", de: "Dokumenttext", ru: "Текст документа" },
  "viewer.ACCESS_DENIED": {
    en: "You do not have access to this passage (or it does not exist).",
    de: "Sie haben keinen Zugriff auf diese Stelle (oder es gibt sie nicht).",
    ru: "У вас нет доступа к этому фрагменту (или его не существует).",
  },
  "viewer.MANIFEST_INVALID": {
    en: "The stored record of this document failed its integrity check.",
    de: "Der gespeicherte Datensatz dieses Dokuments hat die Integritätsprüfung nicht bestanden.",
    ru: "Сохранённая запись этого документа не прошла проверку целостности.",
  },
  "viewer.SOURCE_CHANGED": {
    en: "The source changed since this answer: the passage cannot be verified.",
    de: "Die Quelle hat sich seit dieser Antwort geändert: Die Stelle kann nicht überprüft werden.",
    ru: "Источник изменился после этого ответа: фрагмент нельзя проверить.",
  },
  "viewer.PARSER_MISMATCH": {
    en: "The document was re-extracted since this answer: the passage cannot be verified.",
    de: "Das Dokument wurde seit dieser Antwort neu extrahiert: Die Stelle kann nicht überprüft werden.",
    ru: "Документ был заново извлечён после этого ответа: фрагмент нельзя проверить.",
  },
  "viewer.PROFILE_MISMATCH": {
    en: "The document was re-normalized since this answer: the passage cannot be verified.",
    de: "Das Dokument wurde seit dieser Antwort neu normalisiert: Die Stelle kann nicht überprüft werden.",
    ru: "Документ был заново нормализован после этого ответа: фрагмент нельзя проверить.",
  },
  "viewer.TEXT_CHANGED": {
    en: "The document text changed since this answer: the passage cannot be verified.",
    de: "Der Text des Dokuments hat sich seit dieser Antwort geändert: Die Stelle kann nicht überprüft werden.",
    ru: "Текст документа изменился после этого ответа: фрагмент нельзя проверить.",
  },
  "viewer.INVALID_RANGE": {
    en: "The citation's range is not valid in this text.",
    de: "Der Bereich des Zitats ist in diesem Text ungültig.",
    ru: "Диапазон цитаты недопустим в этом тексте.",
  },
  "viewer.QUOTE_NOT_FOUND": {
    en: "The quoted passage is not in the current text.",
    de: "Die zitierte Stelle steht nicht im aktuellen Text.",
    ru: "Цитируемого фрагмента нет в текущем тексте.",
  },
  "viewer.AMBIGUOUS": {
    en: "This passage is ambiguous in the current text.",
    de: "Diese Stelle ist im aktuellen Text mehrdeutig.",
    ru: "Этот фрагмент неоднозначен в текущем тексте.",
  },
  "viewer.POSITION_MISMATCH": {
    en: "The passage is not where the citation says it is.",
    de: "Die Stelle steht nicht dort, wo das Zitat sie angibt.",
    ru: "Фрагмент находится не там, где указывает цитата.",
  },
  "viewer.HIGHLIGHT_MISMATCH": {
    en: "The viewer could not reproduce the exact passage, so nothing is highlighted.",
    de: "Die Anzeige konnte die genaue Stelle nicht wiedergeben, daher ist nichts hervorgehoben.",
    ru: "Просмотрщик не смог воспроизвести точный фрагмент, поэтому ничего не выделено.",
  },
  "viewer.ERROR": {
    en: "The passage could not be loaded.",
    de: "Die Stelle konnte nicht geladen werden.",
    ru: "Не удалось загрузить фрагмент.",
  },
  "viewer.sheet": { en: "Sheet {locator}", de: "Blatt {locator}", ru: "Лист {locator}" },
  "viewer.role-column": { en: "Column header", de: "Spaltenkopf", ru: "Заголовок столбца" },
  "viewer.role-row": { en: "Row header", de: "Zeilenkopf", ru: "Заголовок строки" },
  "viewer.role-group": { en: "Group header", de: "Gruppenkopf", ru: "Заголовок группы" },
  "viewer.cell": {
    en: "Cited table cell: row {row}, column {column}.",
    de: "Zitierte Tabellenzelle: Zeile {row}, Spalte {column}.",
    ru: "Цитируемая ячейка таблицы: строка {row}, столбец {column}.",
  },
  "viewer.page-image": { en: "Page {label} of the original PDF", de: "Seite {label} des Original-PDF", ru: "Страница {label} исходного PDF" },
  "viewer.page": { en: "Page {label}", de: "Seite {label}", ru: "Страница {label}" },
  "viewer.page-sheet": {
    en: "Page {label} (sheet {sheet} of the file)",
    de: "Seite {label} (Blatt {sheet} der Datei)",
    ru: "Страница {label} (лист {sheet} файла)",
  },
  "viewer.unverified-note": {
    en: "Unverified: the citation named document “{document}” revision {revision}; no passage is highlighted.",
    de: "Nicht überprüft: Das Zitat nannte das Dokument „{document}“, Revision {revision}; keine Stelle ist hervorgehoben.",
    ru: "Не проверено: цитата указывала на документ «{document}», редакция {revision}; ничего не выделено.",
  },
  "viewer.unverified-link": {
    en: "Open the document as it is now (unverified, nothing highlighted)",
    de: "Das Dokument im jetzigen Stand öffnen (nicht überprüft, nichts hervorgehoben)",
    ru: "Открыть документ в текущем виде (не проверено, ничего не выделено)",
  },
  "viewer.unavailable": {
    en: "The document is not available to you.",
    de: "Das Dokument ist für Sie nicht verfügbar.",
    ru: "Документ вам недоступен.",
  },
  "viewer.unverified-text": {
    en: "Document text, unverified: nothing is highlighted",
    de: "Dokumenttext, nicht überprüft: nichts ist hervorgehoben",
    ru: "Текст документа, не проверено: ничего не выделено",
  },
  "viewer.unverified-below": {
    en: "Below: the document as it is now. The cited passage could not be verified in it, so nothing is highlighted.",
    de: "Unten: das Dokument im jetzigen Stand. Die zitierte Stelle konnte darin nicht überprüft werden, daher ist nichts hervorgehoben.",
    ru: "Ниже — документ в текущем виде. Цитируемый фрагмент не удалось в нём проверить, поэтому ничего не выделено.",
  },
  "viewer.older-text": {
    en: "This passage is verified in an older version of this document's text; the document has been re-extracted since.",
    de: "Diese Stelle ist in einer älteren Fassung des Dokumenttextes überprüft; das Dokument wurde seitdem neu extrahiert.",
    ru: "Этот фрагмент проверен в более старой версии текста документа; с тех пор документ был заново извлечён.",
  },
  "viewer.migrated": { en: " It was migrated to ", de: " Sie wurde übertragen auf ", ru: " Он перенесён в " },
  "viewer.anchor": { en: "anchor {anchor}", de: "Anker {anchor}", ru: "якорь {anchor}" },
  "viewer.migrated-where": {
    en: " (revision {revision}, {parser}).",
    de: " (Revision {revision}, {parser}).",
    ru: " (редакция {revision}, {parser}).",
  },
  "viewer.newer-revision": {
    en: "A newer revision of this document exists ({current}): this passage is verified in revision {revision}, which is no longer current.",
    de: "Es gibt eine neuere Revision dieses Dokuments ({current}): Diese Stelle ist in Revision {revision} überprüft, die nicht mehr aktuell ist.",
    ru: "Есть более новая редакция этого документа ({current}): фрагмент проверен в редакции {revision}, которая больше не актуальна.",
  },
  "viewer.in-current": {
    en: " The current revision ({current}) has it too.",
    de: " Die aktuelle Revision ({current}) enthält sie ebenfalls.",
    ru: " В текущей редакции ({current}) он тоже есть.",
  },
  "viewer.not-in-current": {
    en: " The current revision ({current}) no longer has it.",
    de: " Die aktuelle Revision ({current}) enthält sie nicht mehr.",
    ru: " В текущей редакции ({current}) его больше нет.",
  },
  "viewer.not-current": { en: " (not the current revision)", de: " (nicht die aktuelle Revision)", ru: " (не текущая редакция)" },
  "viewer.range": {
    en: "Range [{start}, {end}) in Unicode code points (UTF-16 [{start16}, {end16}) in this page).",
    de: "Bereich [{start}, {end}) in Unicode-Codepunkten (UTF-16 [{start16}, {end16}) auf dieser Seite).",
    ru: "Диапазон [{start}, {end}) в кодовых точках Unicode (UTF-16 [{start16}, {end16}) на этой странице).",
  },
  "viewer.verified": {
    en: "Verified: this is exactly the cited passage.",
    de: "Überprüft: Dies ist genau die zitierte Stelle.",
    ru: "Проверено: это в точности цитируемый фрагмент.",
  },
  "viewer.verified-block": {
    en: "Verified: the cited passage lies in the marked block.",
    de: "Überprüft: Die zitierte Stelle liegt im markierten Block.",
    ru: "Проверено: цитируемый фрагмент находится в отмеченном блоке.",
  },
  "viewer.location": { en: "Location: {where}", de: "Fundort: {where}", ru: "Расположение: {where}" },
  "viewer.language": { en: "Language of the document: {language}", de: "Sprache des Dokuments: {language}", ru: "Язык документа: {language}" },
  "viewer.rtl-order": {
    en: "This PDF gives its right-to-left text in drawing order, not reading order: the passage is shown by the block that holds it, not character by character.",
    de: "Dieses PDF liefert seinen Text von rechts nach links in Zeichenreihenfolge, nicht in Lesereihenfolge: Die Stelle wird durch den Block gezeigt, der sie enthält, nicht Zeichen für Zeichen.",
    ru: "Этот PDF отдаёт текст, написанный справа налево, в порядке отрисовки, а не чтения: фрагмент показан блоком, который его содержит, а не посимвольно.",
  },
  "viewer.enter-key": {
    en: "Enter an API key to open this passage.",
    de: "Geben Sie einen API-Schlüssel ein, um diese Stelle zu öffnen.",
    ru: "Введите API-ключ, чтобы открыть этот фрагмент.",
  },
  "viewer.key-refused": { en: "The API key was refused.", de: "Der API-Schlüssel wurde abgelehnt.", ru: "API-ключ отклонён." },
  // the library
  "library.title": { en: "ragox — documents", de: "ragox — Dokumente", ru: "ragox — документы" },
  "library.heading": { en: "Documents", de: "Dokumente", ru: "Документы" },
  "library.add": { en: "Add a document", de: "Dokument hinzufügen", ru: "Добавить документ" },
  "library.upload": { en: "Upload", de: "Hochladen", ru: "Загрузить" },
  "library.progress": { en: "Upload progress", de: "Fortschritt des Hochladens", ru: "Ход загрузки" },
  "library.find": { en: "Find documents", de: "Dokumente finden", ru: "Поиск документов" },
  "library.name": { en: "Name", de: "Name", ru: "Имя" },
  "library.state": { en: "State", de: "Status", ru: "Состояние" },
  "library.any-state": { en: "Any state", de: "Jeder Status", ru: "Любое состояние" },
  "library.ready": { en: "Ready", de: "Bereit", ru: "Готов" },
  "library.pending": { en: "Being processed", de: "In Bearbeitung", ru: "Обрабатывается" },
  "library.failed": { en: "Failed", de: "Fehlgeschlagen", ru: "Ошибка" },
  "library.group": { en: "Group", de: "Gruppe", ru: "Группа" },
  "library.any-group": { en: "Any group", de: "Jede Gruppe", ru: "Любая группа" },
  "library.language": { en: "Language", de: "Sprache", ru: "Язык" },
  "library.any-language": { en: "Any language", de: "Jede Sprache", ru: "Любой язык" },
  "library.document": { en: "Document", de: "Dokument", ru: "Документ" },
  "library.revision": { en: "Revision", de: "Revision", ru: "Редакция" },
  "library.readers": { en: "Readers", de: "Leser", ru: "Читатели" },
  "library.actions": { en: "Actions", de: "Aktionen", ru: "Действия" },
  "library.paging": { en: "Pages of documents", de: "Seiten der Dokumentliste", ru: "Страницы списка документов" },
  "library.previous": { en: "◀ Previous", de: "◀ Zurück", ru: "◀ Назад" },
  "library.next": { en: "Next ▶", de: "Weiter ▶", ru: "Далее ▶" },
  "library.RECEIVED": { en: "received", de: "empfangen", ru: "получен" },
  "library.EXTRACTING": { en: "extracting", de: "wird extrahiert", ru: "извлекается" },
  "library.EXTRACTED": { en: "extracted", de: "extrahiert", ru: "извлечён" },
  "library.INDEXING": { en: "indexing", de: "wird indexiert", ru: "индексируется" },
  "library.READY": { en: "ready (searchable)", de: "bereit (durchsuchbar)", ru: "готов (доступен для поиска)" },
  "library.FAILED": { en: "failed", de: "fehlgeschlagen", ru: "ошибка" },
  "library.delete": { en: "Delete", de: "Löschen", ru: "Удалить" },
  "library.delete-label": { en: "Delete {document}", de: "{document} löschen", ru: "Удалить {document}" },
  "library.confirm": { en: "Confirm delete", de: "Löschen bestätigen", ru: "Подтвердить удаление" },
  "library.confirm-label": {
    en: "Confirm: delete {document} and its citations",
    de: "Bestätigen: {document} und seine Zitate löschen",
    ru: "Подтвердите: удалить {document} и его цитаты",
  },
  "library.deleted": { en: "Deleted {document}.", de: "{document} gelöscht.", ru: "{document} удалён." },
  "library.delete-refused": { en: "Delete refused ({status}).", de: "Löschen abgelehnt ({status}).", ru: "Удаление отклонено ({status})." },
  "library.reader-groups": {
    en: "Reader groups of {document} (comma-separated)",
    de: "Lesergruppen von {document} (durch Kommas getrennt)",
    ru: "Группы читателей {document} (через запятую)",
  },
  "library.save-readers": { en: "Save readers", de: "Leser speichern", ru: "Сохранить читателей" },
  "library.readers-of": { en: "Readers of {document}", de: "Leser von {document}", ru: "Читатели {document}" },
  "library.readers-now": { en: "Readers of {document}: {groups}.", de: "Leser von {document}: {groups}.", ru: "Читатели {document}: {groups}." },
  "library.operators-only": { en: "operators only", de: "nur Betreiber", ru: "только операторы" },
  "library.change-refused": { en: "Change refused ({status}).", de: "Änderung abgelehnt ({status}).", ru: "Изменение отклонено ({status})." },
  "library.count": {
    en: { one: "{n} document", other: "{n} documents" },
    de: { one: "{n} Dokument", other: "{n} Dokumente" },
    ru: { one: "{n} документ", few: "{n} документа", many: "{n} документов", other: "{n} документа" },
  },
  "library.matching": {
    en: "{shown} of {n} documents match",
    de: "{shown} von {n} Dokumenten passen",
    ru: "Подходят: {shown} из {n}",
  },
  "library.page-of": { en: "Page {page} of {pages}", de: "Seite {page} von {pages}", ru: "Страница {page} из {pages}" },
  "library.uploading": { en: "Uploading {name}: {percent}%", de: "{name} wird hochgeladen: {percent} %", ru: "Загрузка {name}: {percent}%" },
  "library.received": { en: "Received {document} ({revision}): {state}", de: "Empfangen: {document} ({revision}): {state}", ru: "Получен {document} ({revision}): {state}" },
  "library.upload-refused": {
    en: "Upload of {name} refused: {reason}",
    de: "Hochladen von {name} abgelehnt: {reason}",
    ru: "Загрузка {name} отклонена: {reason}",
  },
  "library.no-answer": { en: "no answer", de: "keine Antwort", ru: "нет ответа" },
};

const plurals = new Intl.PluralRules(LANG);

/** The phrase `key` in the interface language, its {names} filled from `values`
 * (a count's form chosen by `values.n`); English where a phrase has no translation. */
export function t(key, values = {}) {
  const entry = WORDS[key];
  if (!entry) return key;
  let phrase = entry[LANG] ?? entry.en;
  if (typeof phrase === "object") phrase = phrase[plurals.select(values.n)] ?? phrase.other;
  return phrase.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

/** An address of one of our pages, keeping the language the address chose. */
export function withLanguage(href) {
  if (!CHOSEN) return href;
  const url = new URL(href, location.origin);
  url.searchParams.set("lang", LANG);
  return url.pathname + url.search + url.hash;
}

/** The page's static words: `data-i18n` names an element's text, `data-i18n-label`
 * its aria-label, `data-i18n-title` its title; the document's language and title too. */
export function localize(root = document) {
  document.documentElement.lang = LANG;
  const title = document.querySelector("title[data-i18n]");
  if (title) document.title = t(title.dataset.i18n);
  for (const element of root.querySelectorAll("body [data-i18n]")) element.textContent = t(element.dataset.i18n);
  for (const element of root.querySelectorAll("[data-i18n-label]")) {
    element.setAttribute("aria-label", t(element.dataset.i18nLabel));
  }
  for (const element of root.querySelectorAll("[data-i18n-title]")) element.title = t(element.dataset.i18nTitle);
  for (const link of root.querySelectorAll("a[href^='/view/']")) link.setAttribute("href", withLanguage(link.getAttribute("href")));
}
