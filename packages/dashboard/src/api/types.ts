// The API's response shapes, by name, as the server's OpenAPI document declares them:
// openapi.d.ts is generated from the served document (npm run client:types -w @mallard/server)
// and a server test fails when it has drifted, so a shape here cannot disagree with what the
// route sends. Name a shape here (never by hand) when a screen reads a new route.
import type { paths } from './openapi.d.ts';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** The methods a documented path answers. */
type MethodOf<P extends keyof paths> = { [M in Method]-?: [NonNullable<paths[P][M]>] extends [never] ? never : M }[Method];
type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
/** The JSON body of an operation's success answer (200, else 201, else 202). */
type Success<Op> = Op extends { responses: infer R }
  ? R extends { 200: infer S } ? Json<S> : R extends { 201: infer S } ? Json<S> : R extends { 202: infer S } ? Json<S> : never
  : never;

/** The `data` of an operation's success envelope, by its documented path and method. */
export type Data<P extends keyof paths, M extends MethodOf<P>> = Success<NonNullable<paths[P][M]>> extends { data: infer D } ? D : never;
/** The JSON body an operation takes, by its documented path and method. */
export type Body<P extends keyof paths, M extends MethodOf<P>> = NonNullable<paths[P][M]> extends { requestBody?: infer B } ? Json<NonNullable<B>> : never;

type Item<L> = L extends readonly (infer T)[] ? T : never;

// Sites
export type Site = Item<Data<'/v1/manage/sites', 'get'>['sites']>;

// Scores and trends
export type Scores = Data<'/v1/query/scores', 'get'>;
export type PageScore = Item<Scores['site']['pages']>;
export type Breakdown = Item<PageScore['breakdown']>;
export type Trends = Data<'/v1/query/trends', 'get'>;
export type HistoryRow = Item<Trends['history']>;
export type Annotation = Item<Trends['annotations']>;

// Issues
export type IssueList = Data<'/v1/query/issues', 'get'>;
export type Issue = Item<IssueList['issues']>;
export type Severity = Issue['severity'];
export type IssueDetail = Data<'/v1/query/issues/{issue_id}', 'get'>;

// Alerts
export type AlertList = Data<'/v1/query/alerts', 'get'>;
export type Alert = Item<AlertList['alerts']>;
export type AlertStatus = Alert['status'];
export type AlertDetail = Data<'/v1/query/alerts/{alert_id}', 'get'>;
export type RevenueAtRisk = Data<'/v1/query/revenue', 'get'>;

// Deploys
export type DeployList = Data<'/v1/query/deploys', 'get'>;
export type Deploy = Item<DeployList['deploys']>;
export type DeployDetail = Data<'/v1/query/deploys/{deploy_id}', 'get'>;

// One page
export type PageDetail = Data<'/v1/query/page', 'get'>;
export type Budget = Item<PageDetail['budgets']>;
export type ElementList = Data<'/v1/query/elements', 'get'>;
export type ElementRow = Item<ElementList['elements']>;
export type PageHeatmap = Data<'/v1/query/page-heatmap', 'get'>;
export type ElementHeatmap = Data<'/v1/query/element-heatmap', 'get'>;
export type PageSnapshot = Data<'/v1/query/page-snapshot', 'get'>;

// Journeys, flows and funnels
export type Journeys = Data<'/v1/query/journeys/friction', 'get'>;
export type FrictionEdge = Item<Journeys['edges']>;
export type Flows = Data<'/v1/query/flows', 'get'>;
export type Funnel = Data<'/v1/query/funnel', 'get'>;
export type SavedFunnel = Item<Data<'/v1/manage/funnels', 'get'>['funnels']>;

// Sessions and clips
export type SessionDetail = Data<'/v1/query/session', 'get'>;
export type SessionEvent = Item<SessionDetail['events']>;
export type SessionSearchList = Data<'/v1/query/sessions', 'get'>;
export type ClipList = Data<'/v1/query/clips', 'get'>;
export type Clip = Item<ClipList['clips']>;
export type ClipDetail = Data<'/v1/query/clips/{id}', 'get'>;
export type ClipUsage = Data<'/v1/manage/site/{id}/clips', 'get'>;

// Recommendations
export type Recommendations = Data<'/v1/query/recommendations', 'get'>;
export type Recommendation = Item<Recommendations['recommendations']>;
