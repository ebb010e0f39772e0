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
