import DefaultTheme from "vitepress/theme";

export default {
  extends: DefaultTheme,
  enhanceApp() {
    // the widgets draw in the browser only
    if (!import.meta.env.SSR) import("simplexity/widgets");
  },
};
