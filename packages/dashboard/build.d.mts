export interface DashboardAsset { name: string; contents: Uint8Array }
export interface DashboardBuild { version: string; index: string; assets: DashboardAsset[] }
export declare const version: string;
export declare const BASE: string;
export declare function buildDashboard(): Promise<DashboardBuild>;
