/** The configuration grid's card: the GRID card, written by the grid analysis (grid-card.md/.json). */
import { registerKindCard } from "../core/kinds.js";
import { GRID_CARD_MD } from "./card.js";

registerKindCard({ kind: "grid", title: "GRID card", what: "configuration grid (SafetyRepro)", file: GRID_CARD_MD });
