// stand-ins/react.d.ts - a minimal stand-in for "react" (@types/react 19), which tsconfig.json's
// "paths" maps the name to: only what readme-react.ts (the README's JSX declaration) uses, shaped
// like the real one (a JSX namespace in the module, HTMLAttributes generic in the element, a ref
// typed by it), so the declaration is checked without the package (and whatever copy of it
// node_modules may hold is never read).
export interface DOMAttributes<T> { children?: unknown; onClick?: (event: MouseEvent & { currentTarget: T }) => void }
export interface HTMLAttributes<T> extends DOMAttributes<T> { className?: string; id?: string; hidden?: boolean }
export type Ref<T> = ((instance: T | null) => void) | { current: T | null } | null;
export interface ClassAttributes<T> { key?: string | number | null; ref?: Ref<T> }
export type DetailedHTMLProps<E extends HTMLAttributes<T>, T> = ClassAttributes<T> & E;
export namespace JSX {
  interface IntrinsicElements { div: DetailedHTMLProps<HTMLAttributes<HTMLDivElement>, HTMLDivElement> }
}
