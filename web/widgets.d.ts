// widgets.d.ts - the declarations of "simplexity/widgets" (widgets.js) and of each widget module
// ("simplexity/widgets/sx-*"). Importing the module registers the custom elements (in a browser;
// in a server-side render it defines nothing).

/** Every widget's tag. */
export declare const TAGS: readonly ("sx-simplex" | "sx-entropy" | "sx-trajectory" | "sx-two-choice" | "sx-fused" | "sx-span-mask" | "sx-pooling" | "sx-attention")[];

/** Fetch the module that defines `tag` (once); resolves to the element's class. */
export declare function load(tag: (typeof TAGS)[number]): Promise<CustomElementConstructor>;
