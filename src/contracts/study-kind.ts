/**
 * The kinds of study Parallax runs, one per source paper: a scaffold and format comparison
 * (ScaffoldSafety), a configuration grid (SafetyRepro), a perturbation audit (Auditing the Audit)
 * and an agent scaffold comparison (GAIA). A study may be several. Its kinds follow from its
 * design unless the spec declares them (`kind` or `kinds`); they choose the analyses that run
 * and the card that headlines the result.
 */
export const STUDY_KINDS = ["comparison", "grid", "audit", "agents"] as const;

export type StudyKind = (typeof STUDY_KINDS)[number];
