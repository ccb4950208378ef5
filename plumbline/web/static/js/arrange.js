// How the lineage graph opens: the whole neighbourhood in view at a readable scale. Tries the graph
// left to right, then top to bottom; when neither fits the canvas at MIN_FIT_SCALE, folds it into
// counted "+K more" nodes, which expand on click: first what lies more than `reach` steps from the
// focus (long chains), then fan-outs wider than `limit` (siblings), until one does; then shows as
// much more as still fits (a wider limit, then a longer reach). Pure but for the layout it measures.
import { FANOUT_LIMIT, collapseFanouts } from './graph_model.js';
import { FIT_PAD, MIN_FIT_SCALE, measure } from './graph_view.js';

/** At most this many tries (each a fold and a layout per direction). */
const MAX_TRIES = 16;
/** Past this many drawn nodes only left to right is tried (a layout of thousands takes a while). */
const BIG = 400;

/** The scale at which a layout fits the canvas (capped at 1.1, as fit() does). */
export function fitScale(lay, canvas) {
  return Math.min(1.1, (canvas.width - 2 * FIT_PAD) / lay.width, (canvas.height - 2 * FIT_PAD) / lay.height);
}

/**
 * {reach, limit, direction, scale, fits} for drawing `model` around `focusId` on a canvas of
 * {width, height} px: the first arrangement that fits at MIN_FIT_SCALE, else the last tried (the
 * most folded). options: directions (default ['LR', 'TB']), layout (extra layout options),
 * shown and pinned (as collapseFanouts takes them).
 */
export function arrange(model, focusId, canvas, options = {}) {
  const directions = options.directions || ['LR', 'TB'];
  const extra = options.layout || {};
  const fold = { shown: options.shown, pinned: options.pinned };
  const tryOne = (reach, limit) => {
    const display = collapseFanouts(model, focusId, { ...fold, reach, limit });
    const dirs = display.nodes.size > BIG ? directions.slice(0, 1) : directions;
    let here = null;
    for (const direction of dirs) {
      const lay = measure(display, { ...extra, direction });
      const scale = fitScale(lay, canvas);
      if (!here || scale > here.scale) here = { display, direction, scale, lay };
      if (scale >= MIN_FIT_SCALE) return { display, reach, limit, direction, scale, lay, fits: true };
    }
    return { ...here, reach, limit, fits: false };
  };
  let reach = Infinity;
  let limit = FANOUT_LIMIT;
  let best = null;
  let fullDepth = 0;
  for (let tries = 0; tries < MAX_TRIES; tries += 1) {
    const here = tryOne(reach, limit);
    const display = here.display;
    if (tries === 0) fullDepth = display.depth;
    if (here.fits) return grow(here, tryOne, fullDepth);
    best = plan(here);
    // Fold the far end first (long chains), then the widest fan-outs: what is near the focus stays.
    const shorter = Math.min(reach, display.depth) - 1;
    if (shorter >= 1) reach = shorter;
    else if (limit > 1) limit = limit > 4 ? limit - 2 : limit - 1;
    else break;
  }
  return best;
}

function plan({ reach, limit, direction, scale, fits }) {
  return { reach, limit, direction, scale, fits };
}

/** Folded to fit, the arrangement shows as much as still fits: a longer reach, a wider limit. */
function grow(fitting, tryOne, maxReach) {
  let at = fitting;
  for (let tries = 0; tries < MAX_TRIES; tries += 1) {
    const wider = at.limit < FANOUT_LIMIT ? tryOne(at.reach, at.limit + 1) : null;
    if (wider && wider.fits) { at = wider; continue; }
    const longer = at.reach < maxReach ? tryOne(at.reach + 1, at.limit) : null;
    if (longer && longer.fits && longer.display.nodes.size > at.display.nodes.size) { at = longer; continue; }
    break;
  }
  return plan(at);
}
