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
export type SiteList = Data<'/v1/manage/sites', 'get'>;
export type Site = Item<SiteList['sites']>;

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

// Signing in, two-factor and OAuth consent
export type Session = NonNullable<Data<'/v1/auth/session', 'get'>>;
export type Role = Session['role'];
export type SignedOut = Data<'/v1/auth/session', 'delete'>;
export type PasswordChanged = Data<'/v1/auth/change-password', 'post'>;
export type PasswordSet = Data<'/v1/auth/set-password', 'post'>;
export type TwoFactorStatus = Data<'/v1/auth/2fa', 'get'>;
export type TwoFactorSetup = Data<'/v1/auth/2fa/setup', 'post'>;
export type TwoFactorEnabled = Data<'/v1/auth/2fa/enable', 'post'>;
export type RecoveryCodes = Data<'/v1/auth/2fa/recovery-codes', 'post'>;
export type ConsentDetails = Data<'/v1/auth/oauth/interaction/{uid}/details', 'get'>;
export type ConsentOrg = Item<ConsentDetails['orgs']>;
export type ConsentSite = Item<ConsentOrg['sites']>;
export type ConsentAnswer = Data<'/v1/auth/oauth/interaction/{uid}/approve', 'post'>;
/** One OAuth connection: the person's own (/auth/oauth/connections) and the org's (/manage/oauth-connections) list the same record. */
export type OAuthConnectionList = Data<'/v1/auth/oauth/connections', 'get'> | Data<'/v1/manage/oauth-connections', 'get'>;
export type OAuthConnection = Item<OAuthConnectionList['connections']>;

// Settings
export type OrgSettings = Data<'/v1/manage/settings', 'get'>;
export type MemberList = Data<'/v1/manage/members', 'get'>;
export type Member = Item<MemberList['members']>;
export type NewMember = Data<'/v1/manage/members', 'post'>;
export type TwoFactorReset = Data<'/v1/manage/members/{id}/reset-2fa', 'post'>;
export type ApiKeyList = Data<'/v1/manage/keys', 'get'>;
export type ApiKey = Item<ApiKeyList['keys']>;
export type NewApiKey = Data<'/v1/manage/keys', 'post'>;
export type SsoConnection = Data<'/v1/manage/sso', 'get'>;
export type WebhookList = Data<'/v1/manage/webhooks', 'get'>;
export type Webhook = Item<WebhookList['webhooks']>;
export type NewWebhook = Data<'/v1/manage/webhooks', 'post'>;
export type DeliveryList = Data<'/v1/manage/webhooks/{id}/deliveries', 'get'>;
export type Delivery = Item<DeliveryList['deliveries']>;
export type TestDelivery = Data<'/v1/manage/webhooks/{id}/test', 'post'>;
export type IntegrationList = Data<'/v1/manage/integrations', 'get'>;
export type Integration = Item<IntegrationList['integrations']>;
export type SdkConfigs = Data<'/v1/manage/sdk-config', 'get'>;
export type SdkConfigEnvironment = Item<SdkConfigs['environments']>;
export type AlertRuleList = Data<'/v1/manage/alert-rules', 'get'>;
export type AlertRule = Item<AlertRuleList['rules']>;
export type SavedFunnels = Data<'/v1/manage/funnels', 'get'>;
export type NewFunnel = Data<'/v1/manage/funnels', 'post'>;

// Raw rows (the document types a row as an open record: its columns depend on the table)
export type RawRows = Data<'/v1/query/raw', 'get'>;
