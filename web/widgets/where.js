// where.js - the URL of the widgets' folder, from a module that imports nothing, so that
// widgets.js can name a widget's module even when the library beside it failed to load: every
// widget's module (sx-*.js) is this file's sibling.
export const WIDGETS_URL = import.meta.url;
