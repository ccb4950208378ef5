// The API token: asked for once when the server answers 401, kept for the browser session.
import { h } from './dom.js';

const KEY = 'plumbline.token';
let pending = null;

export function getToken() {
  return sessionStorage.getItem(KEY);
}

export function clearToken() {
  sessionStorage.removeItem(KEY);
}

/** Show the token dialog (once, however many calls are waiting) and resolve with the token. */
export function askForToken(rejected) {
  if (pending) return pending;
  pending = new Promise((resolve) => {
    const input = h('input', { type: 'password', id: 'token-input', class: 'input', placeholder: 'API token', autocomplete: 'off', required: true });
    const form = h('form', { class: 'modal-card', method: 'dialog' },
      h('h2', null, 'This server requires a token'),
      h('p', { class: 'muted' }, rejected
        ? 'The token was not accepted. Enter a valid token.'
        : 'Enter an API token. It is kept for this browser session only.'),
      input,
      h('div', { class: 'modal-actions' }, h('button', { class: 'btn btn-primary', type: 'submit', id: 'token-submit' }, 'Continue')));
    const overlay = h('div', { class: 'modal', id: 'token-dialog', role: 'dialog', 'aria-modal': 'true' }, form);
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const token = input.value.trim();
      if (!token) return;
      sessionStorage.setItem(KEY, token);
      overlay.remove();
      pending = null;
      resolve(token);
    });
    document.body.append(overlay);
    input.focus();
  });
  return pending;
}
