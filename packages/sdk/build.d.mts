export declare const version: string;
export declare const budgets: { core: number; clips: number };
export declare function buildScriptTag(without?: string[]): Promise<string>;
export declare function buildModule(): Promise<string>;
export declare function buildClips(): Promise<string>;
