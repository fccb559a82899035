// stand-ins/preact.d.ts - a minimal stand-in for "preact" (10, 11), which tsconfig.json's "paths"
// maps the name to: only what readme-preact.ts (the README's JSX declaration) uses, shaped like
// the real one (a JSX namespace in the module, HTMLAttributes exported beside it and generic in
// the element, a ref typed by it), so the declaration is checked without the package (and
// whatever copy of it node_modules may hold is never read).
export type Ref<T> = ((instance: T | null) => void) | { current: T | null } | null;
export interface HTMLAttributes<RefType extends EventTarget = EventTarget> {
  ref?: Ref<RefType>; class?: string; id?: string; children?: unknown;
  onClick?: (event: MouseEvent & { currentTarget: RefType }) => void;
}
export namespace JSX {
  interface IntrinsicElements { div: HTMLAttributes<HTMLDivElement> }
}
