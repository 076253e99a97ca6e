/// The staff menu's words beyond the first few (its pad, its pages, its status lines, the
/// calibration's messages) and the accessibility control's words, in the same six languages.
/// Kept in their own table so the main one (`UIStrings.table`) stays as it was; a word is
/// looked up in both (`UIStrings.text`). Templates carry `{1}`, `{2}`… for what the caller
/// fills in (`UIStrings.text(.calibrateTarget, in: "fr", "1", "4")`).
extension UIStrings {
    static let staffTable: [String: [UIString: String]] = [
        "en": [
            .checking: "Checking …", .wrongPINOneLeft: "Wrong PIN — 1 try left",
            .wrongPINLeft: "Wrong PIN — {1} tries left", .touchTest: "Touch test", .calibrate: "Calibrate",
            .done: "Done", .cancel: "Cancel", .calibrateWait: "Calibrate: please wait …",
            .calibrateTarget: "Tap target {1} of {2}", .calibrateTwoFingers: "Two fingers: tap with one finger only",
            .calibrateTooQuick: "Too quick after the last tap: tap the new target",
            .calibrateSameSpot: "That tap is where target {1}'s was: tap target {2}",
            .calibrateNoFit: "The taps give no calibration (are they on one line?): start again",
            .touchTestLine: "Touch test: {1} fingers, {2} touches", .touchTestFinger: "Finger {1}: {2}, {3}",
            .infoKiosk: "Kiosk: {1}", .infoIP: "IP: {1}", .infoNone: "none", .infoDeck: "Deck: {1} v{2}",
            .infoDecisions: "Decisions: {1} stored, {2} not sent", .infoStorageOK: "Storage: ok",
            .infoStorageFailing: "Storage: ERROR — {1}", .infoUptime: "Running: {1} h {2} min",
            .infoFleetOff: "Fleet: off (no fleet-url)", .infoFleet: "Fleet: {1}, {2} sent since start",
            .infoTemperature: "Temperature: {1} °C",
            .largeText: "Large text", .highContrast: "High contrast", .reducedMotion: "Less motion",
            .switchOn: "On", .switchOff: "Off",
        ],
        "de": [
            .checking: "Prüfe …", .wrongPINOneLeft: "Falsche PIN — noch 1 Versuch",
            .wrongPINLeft: "Falsche PIN — noch {1} Versuche", .touchTest: "Touch-Test", .calibrate: "Kalibrieren",
            .done: "Fertig", .cancel: "Abbrechen", .calibrateWait: "Kalibrieren: bitte warten …",
            .calibrateTarget: "Ziel {1} von {2} antippen",
            .calibrateTwoFingers: "Zwei Finger: bitte mit nur einem Finger tippen",
            .calibrateTooQuick: "Zu schnell nach dem letzten Tippen: das neue Ziel antippen",
            .calibrateSameSpot: "Dort lag schon Ziel {1}: Ziel {2} antippen",
            .calibrateNoFit: "Die Tipps ergeben keine Kalibrierung (liegen sie auf einer Linie?): neu beginnen",
            .touchTestLine: "Touch-Test: {1} Finger, {2} Berührungen", .touchTestFinger: "Finger {1}: {2}, {3}",
            .infoKiosk: "Kiosk: {1}", .infoIP: "IP: {1}", .infoNone: "keine", .infoDeck: "Deck: {1} v{2}",
            .infoDecisions: "Entscheidungen: {1} gespeichert, {2} ungesendet", .infoStorageOK: "Speicher: ok",
            .infoStorageFailing: "Speicher: FEHLER — {1}", .infoUptime: "Laufzeit: {1} h {2} min",
            .infoFleetOff: "Flotte: aus (keine fleet-url)", .infoFleet: "Flotte: {1}, {2} gesendet seit dem Start",
            .infoTemperature: "Temperatur: {1} °C",
            .largeText: "Große Schrift", .highContrast: "Hoher Kontrast", .reducedMotion: "Wenig Bewegung",
            .switchOn: "Ein", .switchOff: "Aus",
        ],
        "fr": [
            .checking: "Vérification …", .wrongPINOneLeft: "Code PIN erroné — encore 1 essai",
            .wrongPINLeft: "Code PIN erroné — encore {1} essais", .touchTest: "Test tactile",
            .calibrate: "Calibrer", .done: "Terminé", .cancel: "Annuler",
            .calibrateWait: "Calibrage : veuillez patienter …", .calibrateTarget: "Touchez la cible {1} sur {2}",
            .calibrateTwoFingers: "Deux doigts : touchez avec un seul doigt",
            .calibrateTooQuick: "Trop rapide après la dernière touche : touchez la nouvelle cible",
            .calibrateSameSpot: "Cette touche est à la place de la cible {1} : touchez la cible {2}",
            .calibrateNoFit: "Ces touches ne donnent pas de calibrage (alignées ?) : recommencez",
            .touchTestLine: "Test tactile : {1} doigts, {2} contacts", .touchTestFinger: "Doigt {1} : {2}, {3}",
            .infoKiosk: "Borne : {1}", .infoIP: "IP : {1}", .infoNone: "aucune", .infoDeck: "Jeu : {1} v{2}",
            .infoDecisions: "Décisions : {1} enregistrées, {2} non envoyées", .infoStorageOK: "Stockage : ok",
            .infoStorageFailing: "Stockage : ERREUR — {1}", .infoUptime: "En marche : {1} h {2} min",
            .infoFleetOff: "Flotte : désactivée (pas de fleet-url)",
            .infoFleet: "Flotte : {1}, {2} envoyées depuis le démarrage", .infoTemperature: "Température : {1} °C",
            .largeText: "Grand texte", .highContrast: "Contraste élevé", .reducedMotion: "Moins d’animation",
            .switchOn: "Oui", .switchOff: "Non",
        ],
        "tr": [
            .checking: "Kontrol ediliyor …", .wrongPINOneLeft: "Yanlış PIN — 1 deneme hakkı kaldı",
            .wrongPINLeft: "Yanlış PIN — {1} deneme hakkı kaldı", .touchTest: "Dokunma testi",
            .calibrate: "Kalibre et", .done: "Bitti", .cancel: "İptal",
            .calibrateWait: "Kalibrasyon: lütfen bekleyin …",
            .calibrateTarget: "Hedef {1} / {2}: dokunun", .calibrateTwoFingers: "İki parmak: tek parmakla dokunun",
            .calibrateTooQuick: "Son dokunuştan sonra çok hızlı: yeni hedefe dokunun",
            .calibrateSameSpot: "Bu dokunuş hedef {1} ile aynı yerde: hedef {2}'ye dokunun",
            .calibrateNoFit: "Dokunuşlar kalibrasyon vermiyor (tek bir çizgide mi?): baştan başlayın",
            .touchTestLine: "Dokunma testi: {1} parmak, {2} dokunuş", .touchTestFinger: "Parmak {1}: {2}, {3}",
            .infoKiosk: "Kiosk: {1}", .infoIP: "IP: {1}", .infoNone: "yok", .infoDeck: "Deste: {1} v{2}",
            .infoDecisions: "Kararlar: {1} kaydedildi, {2} gönderilmedi", .infoStorageOK: "Depolama: tamam",
            .infoStorageFailing: "Depolama: HATA — {1}", .infoUptime: "Çalışma süresi: {1} sa {2} dk",
            .infoFleetOff: "Filo: kapalı (fleet-url yok)", .infoFleet: "Filo: {1}, başlangıçtan beri {2} gönderildi",
            .infoTemperature: "Sıcaklık: {1} °C",
            .largeText: "Büyük yazı", .highContrast: "Yüksek kontrast", .reducedMotion: "Az hareket",
            .switchOn: "Açık", .switchOff: "Kapalı",
        ],
        "ar": [
            .checking: "جارٍ التحقق …", .wrongPINOneLeft: "رقم سري خاطئ — بقيت محاولة واحدة",
            .wrongPINLeft: "رقم سري خاطئ — المحاولات المتبقية: {1}", .touchTest: "اختبار اللمس", .calibrate: "معايرة",
            .done: "تم", .cancel: "إلغاء", .calibrateWait: "المعايرة: يرجى الانتظار …",
            .calibrateTarget: "المس الهدف {1} من {2}", .calibrateTwoFingers: "إصبعان: المس بإصبع واحد فقط",
            .calibrateTooQuick: "سريع جداً بعد اللمسة الأخيرة: المس الهدف الجديد",
            .calibrateSameSpot: "هذه اللمسة في مكان الهدف {1}: المس الهدف {2}",
            .calibrateNoFit: "اللمسات لا تعطي معايرة (هل هي على خط واحد؟): ابدأ من جديد",
            .touchTestLine: "اختبار اللمس: {1} أصابع، {2} لمسات", .touchTestFinger: "الإصبع {1}: {2}، {3}",
            .infoKiosk: "الكشك: {1}", .infoIP: "IP: {1}", .infoNone: "لا يوجد", .infoDeck: "المجموعة: {1} v{2}",
            .infoDecisions: "القرارات: {1} محفوظة، {2} غير مرسلة", .infoStorageOK: "التخزين: سليم",
            .infoStorageFailing: "التخزين: خطأ — {1}", .infoUptime: "مدة التشغيل: {1} س {2} د",
            .infoFleetOff: "الأسطول: متوقف (لا يوجد fleet-url)", .infoFleet: "الأسطول: {1}، أُرسل {2} منذ البدء",
            .infoTemperature: "الحرارة: {1} °C",
            .largeText: "خط كبير", .highContrast: "تباين عالٍ", .reducedMotion: "حركة أقل",
            .switchOn: "تشغيل", .switchOff: "إيقاف",
        ],
        "zh": [
            .checking: "正在检查 …", .wrongPINOneLeft: "PIN 错误 — 还剩 1 次", .wrongPINLeft: "PIN 错误 — 还剩 {1} 次",
            .touchTest: "触摸测试", .calibrate: "校准", .done: "完成", .cancel: "取消", .calibrateWait: "校准：请稍候 …",
            .calibrateTarget: "轻触目标 {1}/{2}", .calibrateTwoFingers: "两根手指：请只用一根手指轻触",
            .calibrateTooQuick: "与上次轻触间隔太短：请轻触新目标", .calibrateSameSpot: "此处是目标 {1} 的位置：请轻触目标 {2}",
            .calibrateNoFit: "这些轻触无法得出校准（是否在一条直线上？）：请重新开始",
            .touchTestLine: "触摸测试：{1} 根手指，{2} 次触摸", .touchTestFinger: "手指 {1}：{2}, {3}",
            .infoKiosk: "终端：{1}", .infoIP: "IP：{1}", .infoNone: "无", .infoDeck: "卡组：{1} v{2}",
            .infoDecisions: "决定：已保存 {1}，未发送 {2}", .infoStorageOK: "存储：正常", .infoStorageFailing: "存储：错误 — {1}",
            .infoUptime: "运行时间：{1} 小时 {2} 分钟", .infoFleetOff: "集群：关闭（无 fleet-url）",
            .infoFleet: "集群：{1}，启动以来已发送 {2}", .infoTemperature: "温度：{1} °C",
            .largeText: "大字体", .highContrast: "高对比度", .reducedMotion: "减少动态效果",
            .switchOn: "开", .switchOff: "关",
        ],
    ]

    /// `key` in `language` with `{1}`, `{2}`… replaced by `values` in order.
    public static func text(_ key: UIString, in language: String?, _ values: String...) -> String {
        text(key, in: language, filling: values)
    }

    /// `key` in `language` with `{1}`, `{2}`… replaced by `values` in order.
    public static func text(_ key: UIString, in language: String?, filling values: [String]) -> String {
        var out = text(key, in: language)
        for (i, v) in values.enumerated() { out = out.replacing("{\(i + 1)}", with: v) }
        return out
    }
}
