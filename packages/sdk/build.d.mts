export declare const version: string;
export declare function buildScriptTag(without?: string[]): Promise<string>;
export declare function buildModule(): Promise<string>;
