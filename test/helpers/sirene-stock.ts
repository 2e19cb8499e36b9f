/**
 * INSEE's SIRENE stock of establishments as the official file writes it (StockEtablissement,
 * format 3.11 with the NAF 2025 column): the published header, in its order, and one row of it.
 */
export const ESTABLISHMENT_HEADER = [
  "siren",
  "nic",
  "siret",
  "statutDiffusionEtablissement",
  "dateCreationEtablissement",
  "trancheEffectifsEtablissement",
  "anneeEffectifsEtablissement",
  "activitePrincipaleRegistreMetiersEtablissement",
  "dateDernierTraitementEtablissement",
  "etablissementSiege",
  "nombrePeriodesEtablissement",
  "complementAdresseEtablissement",
  "numeroVoieEtablissement",
  "indiceRepetitionEtablissement",
  "dernierNumeroVoieEtablissement",
  "indiceRepetitionDernierNumeroVoieEtablissement",
  "typeVoieEtablissement",
  "libelleVoieEtablissement",
  "codePostalEtablissement",
  "libelleCommuneEtablissement",
  "libelleCommuneEtrangerEtablissement",
  "distributionSpecialeEtablissement",
  "codeCommuneEtablissement",
  "codeCedexEtablissement",
  "libelleCedexEtablissement",
  "codePaysEtrangerEtablissement",
  "libellePaysEtrangerEtablissement",
  "identifiantAdresseEtablissement",
  "coordonneeLambertAbscisseEtablissement",
  "coordonneeLambertOrdonneeEtablissement",
  "complementAdresse2Etablissement",
  "numeroVoie2Etablissement",
  "indiceRepetition2Etablissement",
  "typeVoie2Etablissement",
  "libelleVoie2Etablissement",
  "codePostal2Etablissement",
  "libelleCommune2Etablissement",
  "libelleCommuneEtranger2Etablissement",
  "distributionSpeciale2Etablissement",
  "codeCommune2Etablissement",
  "codeCedex2Etablissement",
  "libelleCedex2Etablissement",
  "codePaysEtranger2Etablissement",
  "libellePaysEtranger2Etablissement",
  "dateDebut",
  "etatAdministratifEtablissement",
  "enseigne1Etablissement",
  "enseigne2Etablissement",
  "enseigne3Etablissement",
  "denominationUsuelleEtablissement",
  "activitePrincipaleEtablissement",
  "nomenclatureActivitePrincipaleEtablissement",
  "caractereEmployeurEtablissement",
  "activitePrincipaleNAF25Etablissement",
];

/** One CSV row in the header's order; the columns not given are empty. */
export function stockRow(values: Record<string, string>): string {
  return ESTABLISHMENT_HEADER.map((name) => {
    const value = values[name] ?? "";
    return /[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
  }).join(",");
}
