/**
 * The audit log in the mock: paginated newest first like every list, with exact-match `action`
 * and `resource` filters.
 */
import { paginate } from '../paginate.js';
import type { RouteDefinition } from '../pipeline.js';

export const auditRoutes: RouteDefinition[] = [
  {
    method: 'GET',
    path: '/audit',
    action: 'org.audit.read',
    auditType: 'read',
    resource: (_params, orgId) => `org:${orgId}`,
    handle(context) {
      context.requireOrgRole('admin');
      const action = context.query.get('action');
      const resource = context.query.get('resource');
      const entries = [...context.store.audit.values()]
        .filter(
          (entry) =>
            entry.org_id === context.principal.orgId &&
            (action === null || entry.action === action) &&
            (resource === null || entry.resource === resource),
        )
        .map(({ org_id: _orgId, ...entry }) => entry);
      return paginate(
        context,
        `audit\n${action ?? ''}\n${resource ?? ''}`,
        entries,
        (entry) => entry.time,
      );
    },
  },
];
