// The clustering rule (clustering.ts) applied in memory to a batch of reports, in line order,
// over the corpus events a batch can reach (loaded and locked by the caller) and the events
// the batch opens itself. A report sees the corpus as it would after the lines before it had
// been ingested one by one: every join moves the event's first report date, happened_on,
// participants and named-role entities as the event's state would (event-state.ts).
import { CLUSTER_WINDOW_DAYS, readHappenedOn, windowAnchor } from './clustering.js';
import { DAY_MS } from '../../platform/clock.js';
import { addTo } from '../../platform/set-maps.js';

const WINDOW_MS = CLUSTER_WINDOW_DAYS * DAY_MS;

/** What clustering needs to know of an event. */
export interface ClusterEvent {
  id: string;
  eventTypeId: string;
  live: boolean;
  /** First report date (ms). */
  first: number;
  happenedOn: string | null;
  /** The report that gives the event its happened_at (the first, by report date then id, that has one). */
  happenedFrom: { date: number; id: string } | null;
  /** Canonical entities in the event's roles (participants). */
  participants: Set<string>;
  /** Role id → canonical entities the event's reports name in it. */
  roleEntities: Map<string, Set<string>>;
}

/** A report to place, with what the rule reads of it. */
export interface ClusterCandidate {
  eventTypeId: string;
  date: number;
  happenedAt: string | null;
  /** Canonical participants (entities in its roles). */
  participants: readonly string[];
  /** Its NAMED_ENTITY roles and the canonical entity in each. */
  namedRoles: readonly { roleId: string; entityId: string }[];
}

/** A placed report, with its id (which breaks ties between reports of one date). */
export interface ClusterReport extends ClusterCandidate {
  id: string;
}

const key = (eventTypeId: string, entityId: string) => `${eventTypeId} ${entityId}`;

export class BatchClusters {
  readonly events = new Map<string, ClusterEvent>();
  private readonly byParticipant = new Map<string, Set<ClusterEvent>>();

  constructor(loaded: Iterable<ClusterEvent>) {
    for (const event of loaded) this.add(event);
  }

  private add(event: ClusterEvent): void {
    this.events.set(event.id, event);
    for (const entityId of event.participants) this.index(event, entityId);
  }

  private index(event: ClusterEvent, entityId: string): void {
    addTo(this.byParticipant, key(event.eventTypeId, entityId), event);
  }

  /**
   * The event clusterQuery (clustering.ts) would choose for the report: the live event of its type sharing a
   * participant, within the window, naming no other entity in one of its named roles, most
   * recently first reported (ties: greatest id); null when none.
   */
  find(report: ClusterCandidate): ClusterEvent | null {
    const happenedOn = readHappenedOn(report.happenedAt);
    const anchor = windowAnchor(happenedOn, report.date);
    let best: ClusterEvent | null = null;
    for (const entityId of report.participants) {
      for (const event of this.byParticipant.get(key(report.eventTypeId, entityId)) ?? []) {
        if (!event.live || event === best) continue;
        const at = windowAnchor(event.happenedOn, event.first);
        if (Math.abs(at - anchor) > WINDOW_MS || namesOthers(event, report.namedRoles)) continue;
        if (!best || event.first > best.first || (event.first === best.first && event.id > best.id)) best = event;
      }
    }
    return best;
  }

  /** A new event of the report's type, before the report joins it. */
  open(id: string, eventTypeId: string, date: number): ClusterEvent {
    const event: ClusterEvent = {
      id,
      eventTypeId,
      live: true,
      first: date,
      happenedOn: null,
      happenedFrom: null,
      participants: new Set(),
      roleEntities: new Map(),
    };
    this.add(event);
    return event;
  }

  /** The report joins the event: its state moves as refreshing it would move it. */
  join(event: ClusterEvent, report: ClusterReport, entityValues: readonly { roleId: string; entityId: string }[]): void {
    event.first = Math.min(event.first, report.date);
    const from = event.happenedFrom;
    if (report.happenedAt !== null && (!from || report.date < from.date || (report.date === from.date && report.id < from.id))) {
      event.happenedFrom = { date: report.date, id: report.id };
      event.happenedOn = readHappenedOn(report.happenedAt);
    }
    for (const entityId of report.participants) {
      if (event.participants.has(entityId)) continue;
      event.participants.add(entityId);
      this.index(event, entityId);
    }
    for (const { roleId, entityId } of entityValues) addTo(event.roleEntities, roleId, entityId);
  }
}

/** Whether the event names, in one of the report's named roles, an entity the report does not name there. */
function namesOthers(event: ClusterEvent, namedRoles: ClusterCandidate['namedRoles']): boolean {
  for (const { roleId, entityId } of namedRoles) {
    const entities = event.roleEntities.get(roleId);
    if (entities && (entities.size > 1 || !entities.has(entityId))) return true;
  }
  return false;
}
