// What a server-side renderer does: evaluate the widgets' modules in Node. Nothing is defined.
const widgets = await import("simplexity/widgets");
const each = await Promise.all(widgets.TAGS.map((tag) => import(`simplexity/widgets/${tag}`)));
console.log(JSON.stringify({ tags: widgets.TAGS, modules: each.length, customElements: typeof customElements }));
