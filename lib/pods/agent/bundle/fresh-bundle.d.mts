export declare function freshBundle(root: string, bundle: string): string | null;
