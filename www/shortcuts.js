// shortcuts.js: which keys go to the page's shortcuts (play, pause, step, go to an end, frame the
// selection) and which to the element that has the focus. A text field keeps every key; a control
// the keyboard moved to (with Tab) keeps its own (Space ticks a checkbox, Enter presses a button);
// a control the pointer pressed gives them back, so that the shortcuts work after any button,
// bone or box is clicked, as in Blender and video editors.

let pressed = null; // the control the pointer pressed last, until Tab moves the focus

document.addEventListener('pointerdown', (event) => {
  pressed = event.target instanceof Element ? event.target.closest('button, input, select, summary, a, label, li, tr') : null;
}, true);
document.addEventListener('keydown', (event) => { if (event.key === 'Tab') pressed = null; }, true);

const TEXT_TYPES = new Set(['text', 'search', 'number', 'email', 'password', 'url', 'tel', '']);

// Whether the focused element keeps this key event (the shortcuts leave it alone).
export function keptByFocus(event) {
  const t = event.target;
  if (!(t instanceof Element)) return false;
  if (t.isContentEditable || t.tagName === 'TEXTAREA') return true;
  if (t.tagName === 'INPUT' && TEXT_TYPES.has(t.type)) return true;
  if (/^(INPUT|SELECT|BUTTON|SUMMARY|A)$/.test(t.tagName)) return !(pressed && (pressed === t || pressed.contains(t) || t.contains(pressed)));
  return false;
}
