// The console works without this script; it only adds a copy button, confirmations, and the
// scope ticks of the key form. Served as a file: the Content-Security-Policy forbids inline scripts.
// biome-ignore lint/suspicious/noRedundantUseStrict: a classic script (not a module), where it is not redundant
'use strict';
document.addEventListener('DOMContentLoaded', () => {
  for (const button of document.querySelectorAll('[data-copy-from]')) {
    const source = document.getElementById(button.getAttribute('data-copy-from'));
    if (!source || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(source.textContent.trim());
        button.textContent = 'Copied';
      } catch {
        button.textContent = 'Copy failed: select the key and copy it';
      }
    });
  }

  for (const form of document.querySelectorAll('form[data-confirm]')) {
    form.addEventListener('submit', (event) => {
      if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
    });
  }

  // REPORTS_WRITE needs REPORTS_READ (the server adds it anyway); BEATS_WRITE suggests BEATS_READ.
  const pairs = { REPORTS_WRITE: 'REPORTS_READ', BEATS_WRITE: 'BEATS_READ' };
  for (const [write, read] of Object.entries(pairs)) {
    const writeBox = document.querySelector(`input[name="scopes"][value="${write}"]`);
    const readBox = document.querySelector(`input[name="scopes"][value="${read}"]`);
    if (!writeBox || !readBox) continue;
    writeBox.addEventListener('change', () => {
      if (writeBox.checked) readBox.checked = true;
    });
  }
});
