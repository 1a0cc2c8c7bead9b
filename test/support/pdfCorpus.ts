/**
 * Ready-made fixture PDFs for tests, examples and benchmarks, written with the tiny
 * writer in ./pdfWriter. All prose below was written for these fixtures.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildPdf, truncatePdf, type PdfPage, type PdfSpec } from './pdfWriter';

export const ENGLISH_HISTORY_HEADER = 'Journal of Modern History';
export const ENGLISH_HISTORY_TITLE = 'Bread, Ships and Sovereigns: The Mediterranean Grain Trade, 1550–1650';
export const ENGLISH_HISTORY_AUTHOR = 'Margaret A. Whitfield';
export const ENGLISH_HISTORY_CREATED = new Date(Date.UTC(2019, 2, 14, 9, 30, 0));
/** The printed page label of each page of english-history.pdf. */
export const ENGLISH_HISTORY_LABELS = ['i', '12', '13', '14', '15', '16'];

export const FRENCH_TITLE = 'L’école des Annales et l’invention de la longue durée';
export const FRENCH_AUTHOR = 'Hélène Dubreuil';

const ENGLISH_BODY: string[][] = [
  [
    'Between the middle of the sixteenth century and the crisis years of the 1640s, the cities of the Mediterranean lived, quite literally, from ship to ship. Naples, Genoa, Venice and Istanbul could not feed themselves from their own hinterlands for more than a few months of the year, and their magistrates knew it. This article follows the grain that filled their warehouses: where it was bought, who carried it, and what the state was prepared to do when it failed to arrive.',
    'Drawing on the registers of the Venetian Provveditori alle Biave, the licences issued by the viceroys of Sicily and the correspondence of Genoese merchant houses, it argues that the grain trade was less a market than a negotiated system of permissions. Export licences, known in Sicily as tratte, were the real currency of the trade. Whoever controlled them controlled the price of bread in a dozen cities.',
    'The argument proceeds in four steps. The first section describes the geography of surplus and deficit. The second examines the licences and the fiscal logic behind them. The third turns to shipping and credit, and the fourth to the dearth of the 1590s, when the system nearly broke and the northern carriers entered the sea.',
  ],
  [
    'Fernand Braudel described the Mediterranean as a sea of wheat, but it was an uneven sea. The great surpluses lay at its edges: in Sicily and Apulia, in the plains of Thrace and Thessaly, along the lower Danube and, in good years, in Egypt. The great deficits lay in its cities. A city of two hundred thousand people consumed, by the most cautious estimates, something like forty thousand tonnes of grain a year, and no administration of the period could move that quantity overland.',
    'Water was therefore the only answer. A cargo of wheat carried from Palermo to Genoa cost less to move than the same cargo hauled fifty miles by cart over the Apennines. The consequence was a structural dependence of the coastal cities on distant producers, and a corresponding anxiety that shaped their politics. The Venetian Senate debated grain more often than it debated war, and its deliberations reveal a government that treated the price of bread as a matter of public order.',
    'Surplus regions were not simply generous suppliers. Sicilian barons, Apulian landowners and Ottoman provincial governors all understood that their grain was a strategic asset. They withheld it in lean years, sold it to the highest bidder in good ones, and used it to bargain with princes. The geography of the trade was thus also a geography of power.',
  ],
  [
    'The tratta was a licence to export a fixed quantity of grain from a named port. In Sicily the crown sold these licences to raise revenue, and the price of a tratta rose and fell with the harvest. In a plentiful year the viceroy could issue them freely and fill the treasury; in a poor year he restricted them to keep bread cheap in Palermo and Messina, and the treasury suffered. Fiscal need and public order pulled in opposite directions.',
    'Merchants learned to speculate on the licences themselves. Genoese houses bought tratte in advance, sometimes a year before the harvest, and resold them when scarcity drove up their value. The correspondence of the Spinola and Lomellini families shows agents in Palermo reporting on the weather, the state of the fields and the mood of the viceroy with equal attention. A rumour of drought could double the price of a licence within a week.',
    'For the importing cities, the licence system meant that supply depended as much on diplomacy as on commerce. Venice maintained permanent agents in the grain ports, and its ambassadors at the Spanish court were instructed to press for tratte whenever the Senate feared a shortage. Grain policy was foreign policy conducted by other means.',
  ],
  [
    'Carrying the grain required ships, and ships required credit. The typical grain carrier of the later sixteenth century was a modest vessel of between one and three hundred tonnes, owned in shares by several partners and freighted for a single voyage. Freight contracts preserved in the notarial archives of Genoa and Livorno specify the quantity, the port of loading, the time allowed for the voyage and the penalties for spoiled cargo.',
    'Spoilage was a constant danger. Wheat that took on water in a storm began to heat and rot, and a cargo that arrived damp could be refused by the city inspectors. Insurance markets developed partly to spread this risk. Policies written in Genoa distinguished carefully between losses from shipwreck, from piracy and from the slow ruin of a wet hold, and premiums varied with the season as much as with the route.',
    'Credit bound the whole chain together. The merchant who bought a licence borrowed to pay for it, the shipowner borrowed to fit out his vessel, and the city often advanced money to guarantee delivery. When one link failed, the others were exposed. Bankruptcies in the grain trade tended to come in clusters, and they followed bad harvests with a lag of one or two years.',
  ],
  [
    'The dearth of the 1590s tested this system to its limits. A run of poor harvests across Italy and the Balkans coincided with war, epidemic and the disruption of Ottoman exports. Prices in Venice more than doubled between 1589 and 1591. The Senate ordered searches of private granaries, fixed the price of bread and sent agents as far as Danzig in search of supplies that the Mediterranean could no longer provide.',
    'Northern grain arrived in northern ships. Dutch and Hanseatic vessels, larger and more cheaply run than their Mediterranean rivals, carried Baltic rye and wheat through the Strait of Gibraltar and into Livorno, which the grand dukes of Tuscany had made a free port precisely to attract such traffic. What began as an emergency measure became a permanent feature of the trade.',
    'Historians have long debated whether this northern invasion marked the decline of the Mediterranean economy. The evidence presented here suggests a more cautious conclusion. The old licence system survived, and Sicilian grain continued to feed Genoa and Naples for another half century. What changed was the margin: in years of scarcity the cities now had a second source of supply, and the bargaining power of the southern producers was never quite the same again.',
  ],
  [
    'The grain trade of the early modern Mediterranean was not a free market, nor was it simply an instrument of state control. It was a system of negotiated permissions in which princes, landowners, merchants and magistrates each held part of the power to move food. Its history belongs as much to political and fiscal history as to economic history.',
    'Three conclusions follow. First, the price of bread in the great cities depended on licences and diplomacy as much as on harvests. Second, the financial instruments of the trade, from speculative licences to marine insurance, were shaped by the specific risks of carrying grain by sea. Third, the arrival of northern carriers in the 1590s altered the balance of the system without destroying it.',
    'Further work on the Ottoman side of the trade, and on the provisioning of Istanbul in particular, would allow a fuller comparison. The registers of the imperial grain administration remain largely unexplored, and they may show that the sultans faced the same dilemmas as the Venetian Senate, and answered them in similar ways.',
  ],
];

const ENGLISH_HEADINGS = [
  ENGLISH_HISTORY_TITLE,
  'I. A Geography of Surplus and Deficit',
  'II. Licences and the Fiscal Logic of Grain',
  'III. Ships, Freight and Credit',
  'IV. The Dearth of the 1590s',
  'Conclusion',
];

/** The spec of english-history.pdf: 6 pages, labels i, 12..16, header and page-number footer. */
export function englishHistorySpec(): PdfSpec {
  return {
    pages: ENGLISH_BODY.map((paragraphs, i) => ({
      header: ENGLISH_HISTORY_HEADER,
      heading: ENGLISH_HEADINGS[i],
      paragraphs,
      footer: ENGLISH_HISTORY_LABELS[i],
    })),
    info: {
      Title: ENGLISH_HISTORY_TITLE,
      Author: ENGLISH_HISTORY_AUTHOR,
      Subject: 'Early modern economic history',
      Keywords: 'grain trade; Mediterranean; Sicily; Venice; tratte',
      CreationDate: ENGLISH_HISTORY_CREATED,
    },
    pageLabels: [
      { startPage: 0, style: 'r' },
      { startPage: 1, style: 'D', start: 12 },
    ],
  };
}

/** The two halves of the word hyphenated across a line end in francais.pdf (page 2). */
export const FRENCH_HYPHENATED = { before: 'historio-', after: 'graphie' };

const FRENCH_PAGES: PdfPage[] = [
  {
    heading: FRENCH_TITLE,
    paragraphs: [
      'Lorsque Marc Bloch et Lucien Febvre fondent en 1929 les Annales d’histoire économique et sociale, ils ne proposent pas seulement une nouvelle revue\u00A0: ils déclarent la guerre à une manière d’écrire l’histoire. L’histoire «\u00A0événementielle\u00A0», celle des batailles, des traités et des règnes, leur paraît incapable de rendre compte de la vie réelle des sociétés.',
      'Contre elle, ils réclament une histoire «\u00A0problème\u00A0», ouverte à la géographie, à l’économie, à la démographie et à la psychologie collective. Le programme est ambitieux, parfois flou, mais il donne à toute une génération de chercheurs le sentiment qu’une autre histoire est possible — plus lente, plus profonde, moins soumise au récit des élites.',
      'Cet article retrace la manière dont ce programme s’est transformé, entre 1929 et la fin des années 1960, en une véritable école, puis en une doctrine dont la notion de longue durée est devenue l’emblème.',
    ],
    footer: '1',
  },
  {
    lines: [
      'Il faut d’abord rappeler que les fondateurs ne formaient pas un bloc. Bloch, médiéviste',
      'formé à l’école de Durkheim, s’intéresse aux structures agraires et aux croyances',
      'collectives ; Febvre, spécialiste du XVIe siècle, se passionne pour la psychologie des',
      'hommes de la Renaissance. Ce qui les unit est moins une méthode qu’un refus\u00A0: celui',
      'd’une histoire réduite à la critique des textes et à la chronologie politique. Leur historio-',
      'graphie se veut combative, et la revue multiplie les comptes rendus féroces.',
      '',
      'La guerre brise cet élan. Bloch, engagé dans la Résistance, est fusillé par la Gestapo',
      'en juin 1944 ; son Métier d’historien, inachevé, paraît après sa mort. Febvre, resté à',
      'Paris, maintient la revue sous des titres successifs et prépare l’après-guerre.',
    ],
    footer: '2',
  },
  {
    paragraphs: [
      'Avec Fernand Braudel, la promesse devient œuvre. La Méditerranée et le monde méditerranéen à l’époque de Philippe\u00A0II, soutenue en 1947 et publiée en 1949, organise le temps historique en trois étages\u00A0: le temps presque immobile du milieu géographique, le temps lent des économies et des sociétés, enfin le temps bref de l’événement, «\u00A0agitation de surface\u00A0» que les vagues de l’histoire portent sur leur dos.',
      'L’idée n’est pas entièrement neuve, mais Braudel lui donne un nom et une autorité. En 1958, dans un article célèbre, il fait de la longue durée le langage commun des sciences sociales et invite sociologues, économistes et anthropologues à s’y rallier. L’École pratique des hautes études, dont la VIe section devient le centre de gravité de l’école, offre à ce projet une base institutionnelle solide.',
      'Les critiques ne tardent pas. On reproche à Braudel d’avoir dissous l’homme dans la géographie, d’avoir sacrifié le politique et de n’avoir jamais vraiment articulé ses trois temps. Ces objections, souvent justes, n’empêchent pas la longue durée de s’imposer, jusqu’au tournant des années 1970, comme l’horizon de la discipline en France.',
    ],
    footer: '3',
  },
  {
    paragraphs: [
      'Que reste-t-il aujourd’hui de cette ambition\u00A0? Les historiens ont largement abandonné l’idée d’une histoire totale, et le retour du récit, de l’acteur et de l’événement a profondément modifié le paysage. Pourtant, les questions posées par les Annales — comment articuler les rythmes du temps, comment faire dialoguer l’histoire avec les autres sciences sociales — demeurent au cœur du métier.',
      'On aurait tort, enfin, de réduire l’école à ses grands noms. Ce sont aussi des dizaines de thèses régionales, des enquêtes sur les prix, les salaires et les populations, qui ont donné corps au programme. Leur héritage est moins une doctrine qu’une exigence\u00A0: ne jamais croire que l’histoire se fait seulement là où l’on parle le plus fort.',
    ],
    footer: '4',
  },
];

/** The spec of francais.pdf: 4 pages of French prose, no Info Title (Author only, non-ASCII). */
export function frenchSpec(): PdfSpec {
  return { pages: FRENCH_PAGES, info: { Author: FRENCH_AUTHOR } };
}

/** Spec of the document that encrypted.pdf holds (user password ENCRYPTED_USER_PASSWORD). */
export function encryptedSpec(): PdfSpec {
  return {
    pages: [
      {
        heading: 'Provisioning Istanbul: The Ottoman Grain Administration',
        paragraphs: [
          'The capital of the Ottoman Empire was the largest city of the early modern Mediterranean, and feeding it was a permanent concern of the imperial government. Grain requisitioned in the Balkan and Black Sea provinces was shipped to the capital at fixed prices, and its export to foreign buyers was forbidden in all but the most abundant years.',
        ],
      },
      {
        paragraphs: ['This document is confidential. It is encrypted so that tests can check how the indexer reports a PDF that asks for a password.'],
      },
    ],
    info: { Title: 'Provisioning Istanbul', Author: 'Confidential' },
    encrypted: true,
  };
}

/** Spec of the complete document that truncated.pdf holds the first half of. */
export function truncatedSourceSpec(): PdfSpec {
  const paragraph =
    'The Venetian Arsenal employed several thousand workers at the height of its activity, and visitors marvelled at the speed with which it could fit out a galley. Its registers record timber, hemp, pitch and iron arriving from the terraferma and from Dalmatia, and the wages paid to carpenters, caulkers and oar makers.';
  return {
    pages: Array.from({ length: 4 }, (_, i) => ({ heading: `The Arsenal of Venice, part ${i + 1}`, paragraphs: [paragraph, paragraph] })),
    info: { Title: 'The Arsenal of Venice' },
  };
}

/** Spec of scanned.pdf: three pages with vector drawing and no text layer. */
export function scannedSpec(): PdfSpec {
  return { pages: [{ noText: true }, { noText: true }, { noText: true }] };
}

export const NOT_A_PDF_TEXT = 'This is a plain text note that was saved with a .pdf extension by mistake.\n';

/**
 * Write the fixture library into `dir` (created if needed). Returns absolute paths by file name:
 * english-history.pdf, francais.pdf, encrypted.pdf, truncated.pdf, scanned.pdf, not-a-pdf.pdf, empty.pdf.
 */
export async function writeFixtureLibrary(dir: string): Promise<{ files: Record<string, string> }> {
  await mkdir(dir, { recursive: true });
  const contents: Record<string, Buffer> = {
    'english-history.pdf': buildPdf(englishHistorySpec()),
    'francais.pdf': buildPdf(frenchSpec()),
    'encrypted.pdf': buildPdf(encryptedSpec()),
    'truncated.pdf': truncatePdf(buildPdf(truncatedSourceSpec()), 0.5),
    'scanned.pdf': buildPdf(scannedSpec()),
    'not-a-pdf.pdf': Buffer.from(NOT_A_PDF_TEXT, 'utf8'),
    'empty.pdf': Buffer.alloc(0),
  };
  const files: Record<string, string> = {};
  for (const [name, data] of Object.entries(contents)) {
    const path = join(dir, name);
    await writeFile(path, data);
    files[name] = path;
  }
  return { files };
}
