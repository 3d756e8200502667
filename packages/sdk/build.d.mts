export declare const version: string;
export declare function buildScriptTag(): Promise<string>;
export declare function buildModule(): Promise<string>;
