// Jackpot sign screen: mirrors the serial sign of each progressive shown, from its state pushed
// over SSE (one stream per sign: a screen shows one progressive, or a few side by side).
"use strict";

(function () {
  const money = (cents) => {
    const whole = Math.floor(Math.abs(cents) / 100).toLocaleString("en-US");
    const part = String(Math.abs(cents) % 100).padStart(2, "0");
    return `${cents < 0 ? "-" : ""}$${whole}.${part}`;
  };

  function follow(sign) {
    let winTimer = null;

    async function fetchState() {
      const response = await fetch(sign.dataset.state);
      if (response.ok) show(await response.json());
    }

    function show(state) {
      if (!state) return;
      sign.className = `sign ${state.status}`;
      sign.querySelector(".sign-name").textContent = state.name || "";
      const amount = sign.querySelector(".sign-amount");
      const winning = state.status === "win" && state.win;
      // Like the serial sign: a win shows the amount won, otherwise the meter; a meter never read
      // shows no amount, or the last one the log recorded, marked.
      const unread = state.known === false;
      const cents = winning ? state.win.amount : unread ? state.last_recorded : state.amount;
      const shown = cents === null || cents === undefined ? "" : money(cents);
      amount.textContent = unread && !winning && shown ? `LAST KNOWN ${shown}` : shown;
      amount.dataset.cents = shown ? String(cents) : "";
      let line = "";
      if (winning) {
        line = `WIN TABLE ${state.win.table} SEAT ${state.win.seat}`;
        // The WIN flash ends on the controller's clock; ask once for the state after it.
        clearTimeout(winTimer);
        winTimer = setTimeout(fetchState, 8500);
      } else if (state.status === "pending") {
        line = "JACKPOT PENDING";
      } else if (state.status === "fault") {
        line = state.fault || "FAULT";
      }
      sign.querySelector(".sign-line").textContent = line;
    }

    const source = new EventSource(sign.dataset.stream);
    source.addEventListener("sign", (message) => show(JSON.parse(message.data)));
    source.addEventListener("open", fetchState);
    source.addEventListener("overflow", () => { source.close(); setTimeout(() => window.location.reload(), 1000); });
    if (sign.classList.contains("win")) winTimer = setTimeout(fetchState, 8500);
  }

  document.addEventListener("DOMContentLoaded", () => {
    document.querySelectorAll(".sign[data-stream]").forEach(follow);
  });
})();
