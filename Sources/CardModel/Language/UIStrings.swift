/// The kiosk's own words (not the deck's): button labels, the countdown line, the default
/// empty, attract and closed texts, the list's Delete and back, the staff menu. German,
/// English, French, Turkish, Arabic and Chinese; any other language, and any word missing
/// from a language's table, falls back to English.
public enum UIString: String, CaseIterable, Hashable, Sendable {
    /// The left swipe's / ✗ button's meaning.
    case no
    /// The right swipe's / ✓ button's meaning.
    case yes
    case undo
    /// The accessible "remove this card" capsule.
    case removeCard
    /// The list's swipe-to-delete.
    case delete
    /// The detail page's back control when the list has no title.
    case back
    /// The stack when every card is decided.
    case allDone
    /// The list without rows.
    case noCards
    /// The attract screen's invitation.
    case tapToStart
    /// The inactivity countdown's line.
    case stillThere
    /// The closed-hours screen.
    case closed
    /// The language control's own label (what a visitor who reads none of the rest looks for).
    case language
    case staffTitle
    case enterPIN
    case wrongPIN
    case locked
    case reloadDeck
    case restartVisit
    case blankScreen
    case screenshot
    case close
    // The staff menu's pad, pages and status lines, and the accessibility control's words
    // (their table: UIStrings+Staff.swift). Templates take `{1}`, `{2}`….
    case checking, wrongPINOneLeft, wrongPINLeft, touchTest, calibrate, done, cancel
    case calibrateWait, calibrateTarget, calibrateTwoFingers, calibrateTooQuick, calibrateSameSpot, calibrateNoFit
    case touchTestLine, touchTestFinger
    case infoKiosk, infoIP, infoNone, infoDeck, infoDecisions, infoStorageOK, infoStorageFailing, infoUptime
    case infoFleetOff, infoFleet, infoTemperature
    case largeText, highContrast, reducedMotion, switchOn, switchOff
}

/// The string table (pure Swift, no gettext): `UIStrings.text(.yes, in: "fr")` → "Oui".
public enum UIStrings {
    /// The languages every UI string is translated into.
    public static let languages = ["de", "en", "fr", "tr", "ar", "zh"]

    /// `key` in `language` ("de-AT" finds "de"); English when the language or the word is not in the table.
    public static func text(_ key: UIString, in language: String?) -> String {
        if let tag = LocalizedText.match(language, in: table.keys), let t = word(key, tag) { return t }
        return word(key, "en")!
    }

    /// `key` in the table for exactly `tag`, from whichever table holds it.
    static func word(_ key: UIString, _ tag: String) -> String? {
        table[tag]?[key] ?? staffTable[tag]?[key]
    }

    /// Whether `language` has its own word for every key (else some fall back to English).
    public static func isComplete(_ language: String) -> Bool {
        guard let tag = LocalizedText.match(language, in: table.keys) else { return false }
        return UIString.allCases.allSatisfy { word($0, tag) != nil }
    }

    static let table: [String: [UIString: String]] = [
        "en": [
            .no: "No", .yes: "Yes", .undo: "Undo", .removeCard: "Remove card", .delete: "Delete", .back: "Back",
            .allDone: "All cards done!", .noCards: "No cards", .tapToStart: "Tap to start",
            .stillThere: "Still there? Tap to continue", .closed: "Closed", .language: "Language",
            .staffTitle: "Staff", .enterPIN: "Enter PIN", .wrongPIN: "Wrong PIN",
            .locked: "Locked — please wait 1 minute", .reloadDeck: "Reload deck", .restartVisit: "Restart visit",
            .blankScreen: "Screen off", .screenshot: "Screenshot", .close: "Close",
        ],
        "de": [
            .no: "Nein", .yes: "Ja", .undo: "Rückgängig", .removeCard: "Karte entfernen", .delete: "Löschen",
            .back: "Zurück", .allDone: "Alle Karten erledigt!", .noCards: "Keine Karten",
            .tapToStart: "Tippen zum Starten", .stillThere: "Noch da? Tippen zum Fortfahren",
            .closed: "Geschlossen", .language: "Sprache", .staffTitle: "Personal", .enterPIN: "PIN eingeben",
            .wrongPIN: "Falsche PIN", .locked: "Gesperrt — bitte 1 Minute warten", .reloadDeck: "Deck neu laden",
            .restartVisit: "Besuch neu starten", .blankScreen: "Bildschirm aus", .screenshot: "Screenshot",
            .close: "Schließen",
        ],
        "fr": [
            .no: "Non", .yes: "Oui", .undo: "Annuler", .removeCard: "Retirer la carte", .delete: "Supprimer",
            .back: "Retour", .allDone: "Toutes les cartes sont faites !", .noCards: "Aucune carte",
            .tapToStart: "Touchez pour commencer", .stillThere: "Toujours là ? Touchez pour continuer",
            .closed: "Fermé", .language: "Langue", .staffTitle: "Personnel", .enterPIN: "Saisir le code PIN",
            .wrongPIN: "Code PIN erroné", .locked: "Verrouillé — veuillez patienter 1 minute",
            .reloadDeck: "Recharger le jeu", .restartVisit: "Recommencer la visite", .blankScreen: "Écran éteint",
            .screenshot: "Capture d’écran", .close: "Fermer",
        ],
        "tr": [
            .no: "Hayır", .yes: "Evet", .undo: "Geri al", .removeCard: "Kartı kaldır", .delete: "Sil",
            .back: "Geri", .allDone: "Tüm kartlar tamam!", .noCards: "Kart yok", .tapToStart: "Başlamak için dokunun",
            .stillThere: "Hâlâ orada mısınız? Devam etmek için dokunun", .closed: "Kapalı", .language: "Dil",
            .staffTitle: "Personel", .enterPIN: "PIN girin", .wrongPIN: "Yanlış PIN",
            .locked: "Kilitli — lütfen 1 dakika bekleyin", .reloadDeck: "Desteyi yeniden yükle",
            .restartVisit: "Ziyareti yeniden başlat", .blankScreen: "Ekranı kapat", .screenshot: "Ekran görüntüsü",
            .close: "Kapat",
        ],
        "ar": [
            .no: "لا", .yes: "نعم", .undo: "تراجع", .removeCard: "إزالة البطاقة", .delete: "حذف", .back: "رجوع",
            .allDone: "انتهت كل البطاقات!", .noCards: "لا توجد بطاقات", .tapToStart: "المس للبدء",
            .stillThere: "هل ما زلت هنا؟ المس للمتابعة", .closed: "مغلق", .language: "اللغة",
            .staffTitle: "الموظفون", .enterPIN: "أدخل الرقم السري", .wrongPIN: "رقم سري خاطئ",
            .locked: "مقفل — يرجى الانتظار دقيقة واحدة", .reloadDeck: "إعادة تحميل المجموعة",
            .restartVisit: "إعادة بدء الزيارة", .blankScreen: "إطفاء الشاشة", .screenshot: "لقطة شاشة",
            .close: "إغلاق",
        ],
        "zh": [
            .no: "否", .yes: "是", .undo: "撤销", .removeCard: "移除卡片", .delete: "删除", .back: "返回",
            .allDone: "所有卡片已完成！", .noCards: "没有卡片", .tapToStart: "轻触开始", .stillThere: "还在吗？轻触继续",
            .closed: "已关闭", .language: "语言", .staffTitle: "工作人员", .enterPIN: "输入 PIN", .wrongPIN: "PIN 错误",
            .locked: "已锁定 — 请等待 1 分钟", .reloadDeck: "重新加载卡组", .restartVisit: "重新开始访问",
            .blankScreen: "关闭屏幕", .screenshot: "截图", .close: "关闭",
        ],
    ]

    /// A language's name in itself, for the language control ("Deutsch", "العربية"); the tag
    /// itself for a language not listed.
    public static func name(of language: String) -> String {
        if let n = names[language.lowercased()] { return n }
        return names[LocalizedText.primary(language.lowercased())] ?? language
    }

    static let names: [String: String] = [
        "de": "Deutsch", "en": "English", "fr": "Français", "tr": "Türkçe", "ar": "العربية", "zh": "中文",
        "zh-hans": "简体中文", "zh-hant": "繁體中文", "es": "Español", "it": "Italiano", "nl": "Nederlands",
        "pl": "Polski", "pt": "Português", "ru": "Русский", "uk": "Українська", "fa": "فارسی", "he": "עברית",
        "ja": "日本語", "ko": "한국어", "el": "Ελληνικά", "sv": "Svenska", "da": "Dansk", "cs": "Čeština",
    ]
}
