// Annotations: a note on the timeline (site-wide, or for one page), shown in page detail and
// beside trends.
import { v7 as uuidv7 } from 'uuid';
import type { Static } from '@sinclair/typebox';
import { recordAudit } from '../../audit/record.ts';
import { actorOf, type ServiceContext } from '../../domain/context.ts';
import { invalidInput } from '../../domain/errors.ts';
import { toAnnotation, type AnnotationRecord } from '../../domain/records/annotation.ts';
import { pageParam } from '../../domain/site-settings.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import type { CreateAnnotationBody } from './schemas.ts';

export async function createAnnotation({ ctx, input }: { ctx: ServiceContext; input: Static<typeof CreateAnnotationBody> }): Promise<AnnotationRecord> {
  return (await addAnnotation({ ctx, input })).annotation;
}

/**
 * `onceWithinMs`: the same note (same author, site, page and text) added within that time is
 * not added again (a retried call, e.g. an assistant's tool call sent twice): the earlier one
 * is answered, and `repeated` says so.
 */
export async function addAnnotation({ ctx, input, onceWithinMs }: { ctx: ServiceContext; input: Static<typeof CreateAnnotationBody>; onceWithinMs?: number }): Promise<{ annotation: AnnotationRecord; repeated: boolean }> {
  const { auth, now } = ctx;
  const site = await resolveSite(ctx, input.site_id);
  const message = input.message.trim();
  if (!message) throw invalidInput('message', 'must not be blank');
  const page = input.page === undefined ? null : await pageParam(ctx, site.id, input.page);
  const author = actorOf(auth).label;
  if (onceWithinMs !== undefined) {
    let earlier = ctx.db.selectFrom('annotations').selectAll().where('site_id', '=', site.id).where('author', '=', author)
      .where('message', '=', message).where('created_at', '>=', now - onceWithinMs);
    earlier = page === null ? earlier.where('page', 'is', null) : earlier.where('page', '=', page);
    const found = await earlier.orderBy('created_at', 'desc').limit(1).executeTakeFirst();
    if (found) return { annotation: toAnnotation(found), repeated: true };
  }
  const row = { id: uuidv7(), site_id: site.id, page, message, author, created_at: now };
  await ctx.db.transaction().execute(async (trx) => {
    await trx.insertInto('annotations').values(row).execute();
    await recordAudit(trx, ctx, { action: 'annotation.created', targetType: 'annotation', targetId: row.id, siteId: site.id });
  });
  return { annotation: toAnnotation(row), repeated: false };
}
