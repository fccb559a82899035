// landing.js - the book's map (index.html). The site was one page before it became chapters:
// a link to one of its sections (index.html#span-section) goes on to that section in its
// chapter, found in the map itself (the map links every section), so the links people shared
// keep working. No import: the map fetches nothing else.
const id = decodeURIComponent(location.hash.slice(1));
if (id) {
  const to = [...document.querySelectorAll("nav.map a[href*='#']")].find((a) => a.hash.slice(1) === id);
  if (to) location.replace(to.href);
}
