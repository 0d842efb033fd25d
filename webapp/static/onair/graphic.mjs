// The OGraf v1 graphic of Sova's on-air feed (overlay.ograf.json): a custom element an
// OGraf renderer loads. Its data (updateAction): {server, game, key} — Sova's address, the
// game's id and a broadcast token. It follows the game's stream (Server-Sent Events) and
// shows the score, the sector, the question's author and the minute's countdown, in the
// game's language. The feed's answers carry Access-Control-Allow-Origin, so a renderer on
// another origin may read them. Once the row says «closed», or the feed refuses the key
// (401: revoked), every box is hidden and the graphic draws nothing.
const TEXTS = {
  ru: { experts: "Знатоки", viewers: "Телезрители", round: "Раунд", sector: "Сектор",
        regular: "Вопрос", blitz: "Блиц", superblitz: "Суперблиц", sector13: "13 сектор",
        author: "Автор вопроса", expert: "Отвечает", minute: "Минута обсуждения" },
  be: { experts: "Знаўцы", viewers: "Тэлегледачы", round: "Раўнд", sector: "Сектар",
        regular: "Пытанне", blitz: "Бліц", superblitz: "Супербліц", sector13: "13 сектар",
        author: "Аўтар пытання", expert: "Адказвае", minute: "Хвіліна абмеркавання" },
};

// The row's prize ("300.00 BYN", the contract's point) the way Sova's pages print money:
// "300,00 BYN". Russian after the game's language: a browser without Belarusian data
// (Chromium's trimmed ICU) would fall back to its own locale's point; CLDR's be and ru agree.
function money(prize, language) {
  const m = /^(\d+(?:\.\d+)?) (\S+)$/.exec(prize);
  if (!m) { return prize; }
  const amount = new Intl.NumberFormat([language, "ru"], { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return `${amount.format(Number(m[1]))}\u00a0${m[2]}`;
}

class SovaOnAir extends HTMLElement {
  async load(params) {
    if (params.renderType !== "realtime") {
      return { statusCode: 400, statusMessage: "Only realtime rendering is supported" };
    }
    this.style.cssText = "position:absolute;inset:0;width:1920px;height:1080px;" +
      "font-family:'PT Sans',Arial,sans-serif;color:#fff;display:none";
    this.box = (css) => {
      const el = document.createElement("div");
      el.style.cssText = "position:absolute;padding:14px 28px;font-size:36px;" +
        "background:rgba(12,22,48,0.86);border-left:8px solid #d9a441;" + css;
      el.style.display = "none";  // until a row says what to show
      this.appendChild(el);
      return el;
    };
    this.score = this.box("left:60px;top:60px;font-size:44px");
    this.sector = this.box("left:120px;bottom:250px");
    this.author = this.box("left:120px;bottom:130px");
    this.minute = this.box("right:80px;top:60px;font-size:56px");
    this.row = null;
    this.timer = setInterval(() => this.tick(), 200);
    if (params.data) { this.connect(params.data); }
    return { statusCode: 200 };
  }
  async dispose() {
    clearInterval(this.timer);
    if (this.source) { this.source.close(); }
    this.innerHTML = "";
  }
  async updateAction(params) { this.connect(params.data || {}); }
  async playAction() { this.style.display = "block"; return { statusCode: 200 }; }
  async stopAction() { this.style.display = "none"; return { statusCode: 200 }; }
  async customAction() { return { statusCode: 404 }; }

  connect(data) {
    if (!data.server || !data.game || !data.key) { return; }
    if (this.source) { this.source.close(); }
    const base = String(data.server).replace(/\/$/, "");
    const url = `${base}/api/v1/games/${encodeURIComponent(data.game)}/onair/stream?key=${encodeURIComponent(data.key)}`;
    const source = new EventSource(url);
    this.source = source;
    this.refused = false;
    this.row = null;  // a new key's first row is shown whatever the last one was
    source.addEventListener("row", (event) => {
      const row = JSON.parse(event.data);
      if (!this.row || row.revision > this.row.revision) { this.render(row); }
    });
    source.addEventListener("error", () => {
      // a lost connection is retried by EventSource itself; any answer but 200 closes it
      // for good: 204 after a closed game's last row, 401 once the key is revoked, or a
      // proxy's 5xx — the one way to tell them apart is to ask again
      if (source.readyState !== EventSource.CLOSED || this.source !== source) { return; }
      if (this.row && this.row.status === "closed") { return; }
      const again = () => setTimeout(() => { if (this.source === source) { this.connect(data); } }, 1000);
      fetch(url, { cache: "no-store" }).then((answer) => {
        if (answer.status !== 401) { again(); return; }
        this.refused = true;
        this.dataset.refused = "true";
        if (this.row) { this.render(this.row); }
      }, again);
    });
  }

  render(row) {
    this.row = row;
    const t = TEXTS[row.language] || TEXTS.ru;
    const off = this.refused || row.status === "closed";
    this.score.style.display = off ? "none" : "block";
    this.score.textContent = `${t.experts} ${row.score_experts} : ${row.score_viewers} ${t.viewers}`;
    this.sector.style.display = !off && row.sector ? "block" : "none";
    this.sector.textContent = `${t.round} ${row.round} · ${t.sector} ${row.sector} · ` +
      `${t[row.sector_kind] || ""}${row.prize ? " · " + money(row.prize, row.language) : ""}` +
      `${row.expert ? " · " + t.expert + ": " + row.expert : ""}`;
    this.author.style.display = !off && row.author ? "block" : "none";
    this.author.textContent = `${t.author}: ${row.author}${row.city ? ", " + row.city : ""}`;
    this.tick();
  }

  tick() {
    const row = this.row;
    if (!row || this.refused || row.status === "closed" || !row.minute_running || !row.minute_ends_at) {
      if (this.minute) { this.minute.style.display = "none"; }
      return;
    }
    // never more than a minute (a discussion minute is the longest there is)
    const left = Math.min(60, Math.max(0, Math.ceil((Date.parse(row.minute_ends_at) - Date.now()) / 1000)));
    this.minute.style.display = "block";
    this.minute.textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
  }
}

export default SovaOnAir;
