// dom.js: the page's elements: find one, make one, set its text.

export const $ = (selector) => document.querySelector(selector);

export const text = (element, value) => { element.textContent = value; return element; };

export const make = (tag, attributes = {}, children = []) => {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === 'text') element.textContent = value;
    else element.setAttribute(key, value);
  }
  for (const child of children) element.append(child);
  return element;
};

// Canvas `canvas` at `width` x `height` device pixels (resized only when it differs), cleared:
// its 2D context, without a transform.
export function clearedCanvas(canvas, width, height) {
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
  }
  const g = canvas.getContext('2d');
  g.setTransform(1, 0, 0, 1, 0, 0);
  g.clearRect(0, 0, width, height);
  return g;
}
