/**
 * The prose of the bundled example library (examples/library), as data.
 *
 * Every text below was written for the Similar Sources project and may be reused freely.
 * The authors, journals, the book, the township of Oakenbrook and both "archival" documents
 * are fictional; the history they discuss is real and summarised in our own words.
 *
 * scripts/make-examples.ts turns each entry into a PDF with test/support/pdfWriter.ts.
 * Conventions kept here so the PDFs look like real publications:
 * - page 1 carries the title as a bold heading, every later page starts with a section heading;
 * - a short byline or dateline may open page 1 (a paragraph of a few words);
 * - straight apostrophes and French spacing are typeset by the generator (see `typeset`).
 */

export type ExampleLanguage = 'en' | 'fr';

export interface ExamplePage {
  /** Bold heading at the top of the page (the title on page 1, a section title afterwards). */
  heading?: string;
  paragraphs: string[];
  /** Verbatim lines after the paragraphs (an editor's note). */
  lines?: string[];
}

export interface ExampleSource {
  /** Path under examples/library. */
  file: string;
  language: ExampleLanguage;
  /** The title printed on page 1. */
  title: string;
  author?: string;
  /** Running header on every page (journal, book or archive). */
  header: string;
  /**
   * Printed page numbers in the footer. `arabic`: start, start+1, ...; `front-matter`:
   * `romanPages` pages numbered in lower-case roman from `romanStart`, then 1, 2, ...
   */
  numbering: { style: 'arabic'; start: number } | { style: 'front-matter'; romanStart: number; romanPages: number };
  /** Whether the PDF carries /PageLabels matching the printed numbers. */
  pageLabels: boolean;
  /** Which /Info entries the PDF has (Title, Author) and its CreationDate (ISO, UTC). */
  info: { title: boolean; author: boolean; created?: string };
  /** Citation key in examples/library/library.bib, if the source has an entry there. */
  citekey?: string;
  /** A primary source (lives in examples/library/archives). */
  primary?: boolean;
  /** Use typographic apostrophes and French spacing (typeset publications, not transcriptions). */
  typeset: boolean;
  pages: ExamplePage[];
}

// ---------------------------------------------------------------------------------------------
// 1. The Mediterranean grain trade (English article, pp. 213-217)

const grainTrade: ExampleSource = {
  file: 'grain-trade.pdf',
  language: 'en',
  title: 'Licensed Abundance: Grain, Permits and Power in the Mediterranean, 1550–1650',
  author: 'Margaret A. Whitfield',
  header: 'Journal of Mediterranean Economic History 41 (2019)',
  numbering: { style: 'arabic', start: 213 },
  pageLabels: true,
  info: { title: true, author: true, created: '2019-03-14T09:30:00Z' },
  citekey: 'whitfield2019grain',
  typeset: true,
  pages: [
    {
      heading: 'Licensed Abundance: Grain, Permits and Power in the Mediterranean, 1550–1650',
      paragraphs: [
        'Margaret A. Whitfield',
        "No large city of the sixteenth-century Mediterranean could live on the grain grown within a day's walk of its walls. Venice, Genoa, Naples and Rome each consumed tens of thousands of tonnes of wheat a year, and in most years their own countryside supplied only a fraction of it. The rest came by sea, from Sicily and Apulia, from the Aegean islands, from the plains of Thrace and, when the Ottoman authorities allowed it, from Egypt. This article asks how that seaborne supply was organised, and argues that it rested less on open markets than on a dense system of permits, privileges and political bargains.",
        'The reason for this dependence was simple arithmetic. Moving a cartload of wheat fifty kilometres overland could double its price, whereas a ship could carry the same load from Palermo to Genoa for a small fraction of the cost. Urban magistrates therefore looked to the sea, and the sea made them anxious. A contrary wind, a corsair squadron or a rumour of drought in Sicily could empty the public granaries within weeks. The records of the Venetian grain office, the Provveditori alle Biave, are full of anxious calculations of how many days of bread remained in store, and the Senate discussed grain far more often than it discussed war.',
        'Surplus regions, for their part, were well aware of their leverage. Sicilian barons and Apulian landowners held back their stocks in lean years, and Ottoman governors treated the export of wheat as a favour to be granted or withheld. The map of the trade was therefore also a map of dependence, in which the great consuming cities of the north and west bargained, often from weakness, with the producing provinces of the south and east. Whoever held the granaries held a hand of cards that no fleet could take away.',
      ],
    },
    {
      heading: 'I. The tratta: an export licence as currency',
      paragraphs: [
        'In the kingdom of Sicily, no grain could leave a port without a tratta, a licence issued in the name of the crown that specified the quantity, the port of loading and often the destination. The viceregal government sold these licences, and their sale was one of its most reliable sources of revenue. This created a permanent tension at the heart of policy. In a good year the viceroy could issue tratte generously and fill the treasury; in a bad year he had to restrict them to keep bread affordable in Palermo and Messina, and the treasury paid the price. Revenue and public order pulled in opposite directions, and the balance between them was renegotiated every harvest.',
        'Because the licence, not the grain itself, was the scarce good, the tratta became an object of speculation in its own right. Genoese merchant houses bought licences months before the harvest and resold them when prices rose. Their letters from Palermo read like weather reports: agents describe the rains of April, the state of the standing crops and the temper of the viceroy with the same careful attention. It is no exaggeration to say that the licence functioned as the true currency of the trade, and that whoever held the licences held the price of bread in a dozen distant cities.',
        'For the importing republics, this meant that supply was a diplomatic matter. Venice kept agents in the main grain ports and instructed its ambassadors at the Spanish court to press for licences whenever the harvest looked poor. Genoa, closer to the Spanish crown through its bankers, could often obtain them on better terms. Access to bread, in other words, reflected political and financial alliances as much as purchasing power. A republic without friends at court could find its ships waiting empty in Sicilian harbours while its rivals loaded their holds.',
      ],
    },
    {
      heading: 'II. Ships, freight and the risk of the wet hold',
      paragraphs: [
        "The vessels that carried grain were mostly modest ships of one to three hundred tonnes, owned in shares by several partners and chartered voyage by voyage. Freight contracts drawn up before notaries in Genoa and Livorno fixed the quantity to be loaded, the time allowed for the passage and the penalties that would apply if the cargo arrived spoiled. These documents show a trade conducted on thin margins, in which a few days' delay could turn a profitable voyage into a loss.",
        'Spoilage was the characteristic danger of the grain trade. Wheat that took in sea water began to heat, sprout and rot, and city inspectors were entitled to refuse a damp cargo at the quay. Marine insurance, which developed rapidly in Genoa in this period, distinguished with some precision between shipwreck, capture by corsairs and the slow ruin of a wet hold. Premiums varied with the season as much as with the route: a winter passage cost considerably more to insure than the same voyage in early summer.',
        'Credit held the whole chain together. Merchants borrowed to buy licences, shipowners borrowed to fit out their vessels, and cities advanced money to guarantee deliveries. When a harvest failed, these obligations came due all at once, and failures in the grain trade tended to arrive in clusters, a year or two after a bad season. The financial history of the trade is thus closely tied to its agrarian calendar, and a historian who reads the bankruptcy registers of Genoa can almost reconstruct the sequence of poor harvests from them.',
      ],
    },
    {
      heading: 'III. The crisis of the 1590s and the northern carriers',
      paragraphs: [
        'The system came close to breaking in the last decade of the sixteenth century. Several poor harvests in succession across Italy and the Balkans coincided with war, epidemic disease and a sharp reduction in Ottoman exports. In Venice the price of wheat more than doubled between 1589 and 1591. The Senate ordered searches of private granaries, fixed the price of bread and dispatched agents as far as Danzig to buy grain that the Mediterranean could no longer supply. Its officials were under no illusion about the risks: every week of delay in the ports meant longer queues at the bakers of the city.',
        'That grain arrived in northern ships. Dutch and Hanseatic vessels, larger and cheaper to operate than their southern competitors, brought Baltic rye and wheat through the Strait of Gibraltar to Livorno, which the grand dukes of Tuscany had turned into a free port partly in order to attract such cargoes. What began as an emergency expedient became a lasting feature of Mediterranean commerce, and the northern carriers did not leave when the harvests improved. Within a generation they were carrying not only grain but salt, wine and oil between Mediterranean ports.',
        "Historians have often read this episode as the beginning of the Mediterranean's economic decline. The evidence of the licence registers suggests a more cautious reading. Sicilian grain continued to feed Genoa and Naples for another half century, and the licensing system survived intact. What changed was the margin of choice: in years of dearth the importing cities now had a second source of supply, and the bargaining power of southern producers was permanently reduced. A Sicilian viceroy who overpriced his licences now risked seeing the Venetians buy in Danzig instead.",
      ],
    },
    {
      heading: 'Conclusion',
      paragraphs: [
        'The grain trade of the early modern Mediterranean was neither a free market nor a simple instrument of state control. It was a system of negotiated permissions in which kings, viceroys, landowners, merchants and urban magistrates each held part of the power to move food across the sea. The price of bread in Venice or Genoa depended on the rains of Sicily, but it depended just as much on the fiscal needs of a viceroy and on the diplomatic standing of a republic at the Spanish court.',
        'Three conclusions follow from this. First, the supply of the great cities must be studied as a political and fiscal question, not only as an economic one. Second, the instruments of the trade, from speculative licences to marine insurance, were shaped by the particular risks of carrying grain by sea. Third, the arrival of the northern carriers in the 1590s altered the balance of the system without abolishing it. Comparative work on the provisioning of Istanbul, whose archives remain underused, would show whether the sultans faced the same dilemmas and answered them in the same way.',
      ],
    },
  ],
};

// ---------------------------------------------------------------------------------------------
// 2. Les Annales et la longue durée (French article, pp. 45-49, no /Info Title)

const annales: ExampleSource = {
  file: 'annales-longue-duree.pdf',
  language: 'fr',
  title: "Les Annales et le temps long : genèse et fortune d'une notion, 1929-1979",
  author: 'Hélène Dubreuil',
  header: "Cahiers d'historiographie, n° 12, 2015",
  numbering: { style: 'arabic', start: 45 },
  pageLabels: true,
  info: { title: false, author: true, created: '2015-06-02T14:00:00Z' },
  citekey: 'dubreuil2015annales',
  typeset: true,
  pages: [
    {
      heading: "Les Annales et le temps long : genèse et fortune d'une notion, 1929-1979",
      paragraphs: [
        'Hélène Dubreuil',
        "En janvier 1929 paraît à Strasbourg le premier numéro des Annales d'histoire économique et sociale. Ses deux directeurs, Marc Bloch et Lucien Febvre, y promettent moins une doctrine qu'un état d'esprit : abattre les cloisons entre disciplines, mettre l'histoire à l'écoute de la géographie, de l'économie et de la sociologie, et préférer les problèmes aux récits. Cet article suit la manière dont cette ambition, d'abord polémique, a produit une notion appelée à un succès considérable, celle de longue durée, et s'interroge sur ce qu'il en reste une fois passée l'époque de sa domination.",
        "Il importe de rappeler d'emblée que la longue durée n'est pas née avec la revue. Le mot ne s'impose sous la plume de Fernand Braudel qu'à la fin des années 1950, et les fondateurs parlaient plutôt de structures, de mentalités ou de cadres de vie. Mais le geste qui rend la notion possible est déjà là en 1929 : le refus de confondre l'histoire avec la succession des événements politiques, et la conviction que les sociétés changent à des rythmes très différents selon qu'on observe leurs gouvernements, leurs économies ou leurs paysages.",
      ],
    },
    {
      heading: "1. Contre l'histoire événementielle",
      paragraphs: [
        "La cible des fondateurs est connue : une histoire qu'ils jugent prisonnière des archives diplomatiques, des batailles et des règnes, et que Febvre raille sous le nom d'histoire « historisante ». À cette chronique des sommets, ils opposent l'étude des campagnes, des prix, des techniques et des croyances partagées. Les Rois thaumaturges de Bloch, consacré à la croyance au pouvoir de guérison des rois, ou le Rabelais de Febvre, qui interroge ce qu'il était possible de croire au XVIe siècle, montrent que la critique ne se limite pas à l'économie : elle vise toute histoire qui ignore les profondeurs de la vie sociale.",
        "Cette position polémique a un coût. La revue, jusqu'en 1939, multiplie les comptes rendus sévères et les manifestes, et gagne la réputation d'une chapelle combative. La guerre interrompt brutalement l'aventure commune : Bloch, entré dans la Résistance, est arrêté puis fusillé en juin 1944, laissant inachevé un essai de méthode publié après sa mort. Febvre poursuit seul, et c'est à lui que revient d'installer, après la Libération, l'héritage des Annales dans les institutions. Il le fera avec une énergie d'organisateur que ses adversaires eux-mêmes lui reconnaissaient.",
        "Le cadre institutionnel compte autant que les idées. La création en 1947 de la VIe section de l'École pratique des hautes études, consacrée aux sciences économiques et sociales, offre aux disciples de Febvre des postes, des crédits et des séminaires. Les centres de recherche qui s'y créent financent aussi des enquêtes collectives d'une ampleur inédite. Sans cette base, on comprendrait mal la vitesse avec laquelle un programme de quelques francs-tireurs devient, en une génération, la manière dominante de faire de l'histoire en France.",
      ],
    },
    {
      heading: "2. Braudel et l'architecture des temps",
      paragraphs: [
        "C'est avec La Méditerranée et le monde méditerranéen à l'époque de Philippe II, thèse publiée en 1949, que le programme trouve sa forme la plus achevée. Braudel y distribue la matière en trois parties qui correspondent à trois vitesses du temps. La première traite d'une histoire presque immobile, celle des rapports de l'homme avec les montagnes, les plaines et la mer ; la deuxième, d'une histoire lentement rythmée, celle des économies, des États et des sociétés ; la troisième seulement, de l'histoire des événements, qu'il compare à une écume agitée à la surface des eaux profondes.",
        "En 1958, dans un article devenu classique, Braudel donne enfin un nom à cette architecture : la longue durée. Il y invite les sociologues, les économistes et les anthropologues à reconnaître dans le temps long un langage commun à toutes les sciences sociales, et à laisser à l'histoire le rôle de coordinatrice. L'ambition est impériale, et elle est servie par une position institutionnelle exceptionnelle, puisque Braudel dirige alors à la fois la revue et la VIe section. Peu d'historiens ont disposé, avant ou après lui, d'un tel pouvoir sur leur discipline.",
        "Dans l'ombre de ce grand dessein, une histoire quantitative s'épanouit. Dans le sillage d'Ernest Labrousse, on dresse des séries de prix, de salaires, de naissances et de décès ; les grandes thèses régionales suivent pendant des siècles les populations d'une province, leurs récoltes et leurs crises. La longue durée cesse d'être une métaphore pour devenir un ensemble de courbes, où les cycles économiques s'emboîtent dans des tendances séculaires. Le climat lui-même entre dans le champ de l'historien, lorsque Emmanuel Le Roy Ladurie exploite les dates des vendanges pour reconstituer les étés d'autrefois.",
      ],
    },
    {
      heading: '3. Critiques et fragmentations',
      paragraphs: [
        "Les critiques n'ont jamais manqué. On a reproché à Braudel d'avoir dissous les hommes dans le décor géographique, de n'avoir jamais vraiment relié ses trois étages, et d'avoir laissé le politique à l'abandon. Les historiens du politique et des idées y voyaient une histoire sans acteurs ; les marxistes, une histoire sans conflit ; d'autres encore, une manière élégante de justifier l'impuissance humaine face aux structures. Braudel répondait volontiers que l'homme n'est pas le maître de son temps, ce qui ne convainquait guère ses adversaires.",
        "À partir des années 1970, la génération suivante déplace les regards vers les mentalités, la culture matérielle et l'anthropologie historique. La revue, qui porte depuis 1946 le sous-titre Économies, Sociétés, Civilisations, s'ouvre à une multitude d'objets : la mort, la famille, le corps, la fête. Cette dispersion, que certains critiques ont décrite comme un émiettement, marque la fin d'une hégémonie plus qu'un abandon du temps long : les séries et les structures demeurent, mais elles ne prétendent plus ordonner l'ensemble du savoir.",
        "Le retour du récit, de l'événement et de l'acteur, dans les années 1980, achève de transformer le paysage. Les Annales elles-mêmes proposent en 1989 un « tournant critique » qui invite à penser les usages, les pratiques et les échelles d'observation. La longue durée survit pourtant, sous des formes renouvelées, dans l'histoire environnementale et dans l'histoire globale. Les débats sur le climat lui ont même rendu, ces dernières années, une actualité inattendue, en obligeant les historiens à penser des durées qui excèdent de loin celle des régimes politiques.",
      ],
    },
    {
      heading: 'Conclusion',
      paragraphs: [
        "Que retenir de cette trajectoire ? D'abord que la longue durée est moins une découverte qu'une construction, née de la rencontre d'une polémique, d'une œuvre et d'une institution. Ensuite que sa force tenait à sa capacité à proposer une hiérarchie des temps à laquelle toutes les sciences sociales pouvaient se rallier. Enfin que cette hiérarchie, une fois contestée, a laissé derrière elle une question qui demeure au cœur du métier d'historien : comment articuler des changements qui ne vont pas à la même vitesse ?",
        "C'est peut-être là l'héritage le plus durable des Annales : non pas une méthode unique, mais l'exigence de toujours situer un événement dans les rythmes plus lents qui le rendent possible. Une crise frumentaire, une révolution ou une épidémie ne se comprennent pleinement que replacées dans l'histoire des climats, des échanges et des structures sociales qui les portent. L'historien qui l'oublie risque de ne voir que l'écume. Celui qui ne regarde que les structures, à l'inverse, risque de ne plus voir personne.",
      ],
    },
  ],
};

// ---------------------------------------------------------------------------------------------
// 3. Le Maximum de 1793 (French article, printed pp. 131-134, no /PageLabels)

const maximum: ExampleSource = {
  file: 'maximum-1793.pdf',
  language: 'fr',
  title: 'Taxer le pain : le Maximum général et la politique des subsistances à Paris (1793-1794)',
  author: 'Étienne Roussel',
  header: "Revue d'histoire de la Révolution, t. 27, 2008",
  numbering: { style: 'arabic', start: 131 },
  pageLabels: false,
  info: { title: true, author: true, created: '2008-11-20T10:15:00Z' },
  citekey: 'roussel2008maximum',
  typeset: true,
  pages: [
    {
      heading: 'Taxer le pain : le Maximum général et la politique des subsistances à Paris (1793-1794)',
      paragraphs: [
        'Étienne Roussel',
        "Au printemps 1793, la question du pain domine de nouveau la vie politique parisienne. La guerre extérieure, la révolte vendéenne et la dépréciation rapide de l'assignat font monter le prix des grains, tandis que les paysans rechignent à vendre contre une monnaie de papier dont ils se méfient. Dans les sections parisiennes, les militants sans-culottes réclament que la loi fixe le prix des denrées de première nécessité et punisse ceux qui les cachent. Cet article examine comment la Convention, longtemps attachée à la liberté du commerce des grains, finit par céder à cette exigence, et avec quels résultats.",
        "La revendication n'est pas neuve. Sous l'Ancien Régime déjà, les foules urbaines attendaient des autorités qu'elles garantissent un « juste prix » du pain, et les émeutes frumentaires visaient souvent à imposer une taxation populaire plutôt qu'à piller. Ce qui change en 1793, c'est que cette économie morale trouve des porte-parole organisés, les Enragés de Jacques Roux puis les Hébertistes, et une assemblée qui ne peut se passer du soutien des sections. Le pain devient ainsi, en quelques mois, l'un des terrains décisifs de la lutte politique.",
      ],
    },
    {
      heading: '1. Du maximum des grains au Maximum général',
      paragraphs: [
        "Une première loi, le 4 mai 1793, fixe un prix plafond des grains et des farines dans chaque département. Mal appliquée, contournée par les producteurs qui vendent hors des marchés, elle provoque surtout la raréfaction des arrivages. L'été suivant, la Convention durcit le ton : la loi du 26 juillet contre les accapareurs punit de mort la dissimulation de denrées, et les journées des 4 et 5 septembre, où les sans-culottes envahissent l'Assemblée, mettent « la Terreur à l'ordre du jour ».",
        "C'est dans ce contexte qu'est votée, le 29 septembre 1793, la loi du Maximum général. Elle fixe le prix de quarante denrées et marchandises jugées de première nécessité, du pain à la viande, du bois de chauffage au savon, au niveau de 1790 augmenté d'un tiers. Les salaires sont eux aussi plafonnés, à leur niveau de 1790 augmenté de moitié. La mesure se veut équilibrée ; dans les faits, les marchands et les boutiquiers la vivent comme une spoliation, et les ouvriers découvrent vite que le plafond des salaires est mieux respecté que celui des prix.",
        "Pour faire appliquer la loi, l'État se dote de moyens inédits. Des armées révolutionnaires parcourent les campagnes pour réquisitionner les grains, une Commission des subsistances centralise les achats, et les communes sont tenues de dresser l'inventaire de leurs récoltes. Le contrôle des prix entraîne ainsi, presque mécaniquement, une administration de l'approvisionnement tout entière. Ce glissement, de la taxation à la réquisition, est au cœur de l'expérience de l'an II : il révèle qu'un prix fixé par la loi ne vaut que si l'on peut forcer les producteurs à vendre.",
      ],
    },
    {
      heading: "2. La carte de pain et la file d'attente",
      paragraphs: [
        "À Paris, la politique du Maximum prend la forme concrète de la carte de pain. Chaque section recense ses habitants et leur délivre une carte donnant droit à une ration quotidienne, retirée chez un boulanger désigné. Les files d'attente s'allongent à la porte des boutiques dès avant l'aube, et les rapports des observateurs de police décrivent une population épuisée, soupçonneuse, prompte à accuser le boulanger voisin de mélanger de mauvaises farines ou de servir d'abord ses amis. Les rixes dans les files d'attente sont fréquentes, et la police les surveille comme autant de signes de l'humeur populaire.",
        "Le pain reste pourtant disponible à un prix que les Parisiens peuvent payer, et c'est là le principal succès du dispositif. La capitale, ravitaillée en priorité au détriment des départements voisins, ne connaît pas la famine pendant l'hiver de l'an II. Mais les autres denrées disparaissent des étals : la viande, le beurre, les œufs et le savon se vendent sous le manteau, à des prix sans rapport avec les tarifs officiels, et un marché parallèle prospère à l'ombre de la loi.",
        "Les paysans, de leur côté, ne voient guère d'intérêt à produire pour un marché où le prix est fixé en assignats dévalués. Les réquisitions suscitent des résistances, des dissimulations, parfois des violences. Le Maximum apparaît ainsi comme une politique urbaine imposée aux campagnes, et ce conflit d'intérêts entre villes consommatrices et villages producteurs en explique en grande partie l'échec à long terme. Il annonce aussi des tensions qui reparaîtront à chaque crise des subsistances du siècle suivant. La ville et la campagne n'y ont jamais les mêmes intérêts.",
      ],
    },
    {
      heading: "3. L'abolition et ses suites",
      paragraphs: [
        "Après la chute de Robespierre, la Convention thermidorienne revient au libéralisme économique. Le Maximum est aboli le 4 nivôse an III, soit le 24 décembre 1794. Le résultat est désastreux : libérés de tout contrôle, les prix s'envolent, l'assignat s'effondre et l'hiver 1794-1795, d'une rigueur exceptionnelle, devient l'un des plus meurtriers de la période. Les insurrections de germinal et de prairial an III, au cri de « Du pain et la Constitution de 1793 », sont les dernières grandes journées populaires de la Révolution.",
        "Faut-il conclure à l'échec du Maximum ? La réponse dépend de ce qu'on attendait de lui. Comme instrument économique, il n'a pas empêché la pénurie ni arrêté l'inflation. Comme instrument politique, il a permis au gouvernement révolutionnaire de nourrir Paris pendant la guerre et de conserver l'appui des sections au moment le plus critique. Il a surtout posé, pour la première fois à cette échelle, la question de la responsabilité de l'État dans la subsistance des citoyens, une question que les révolutions parisiennes du XIXe siècle reprendront à leur tour.",
      ],
    },
  ],
};

// ---------------------------------------------------------------------------------------------
// 4. Railway time (English book: preface vii-viii, chapter 1 pp. 1-4)

const railwayTime: ExampleSource = {
  file: 'railway-time.pdf',
  language: 'en',
  title: 'Clocks, Rails and the Nation: Standard Time in Victorian Britain',
  author: 'Harold J. Pemberton',
  header: 'Clocks, Rails and the Nation',
  numbering: { style: 'front-matter', romanStart: 7, romanPages: 2 },
  pageLabels: true,
  info: { title: true, author: true, created: '2004-09-01T08:00:00Z' },
  citekey: 'pemberton2004clocks',
  typeset: true,
  pages: [
    {
      heading: 'Clocks, Rails and the Nation: Standard Time in Victorian Britain',
      paragraphs: [
        'Harold J. Pemberton',
        'Preface',
        'This book began with a timetable. Reading a railway guide from the early 1840s, I noticed a small note explaining that the times given for each station were London time, and that passengers should allow for the difference from the clocks of their own town. The note was printed as if the matter were obvious, yet it described a country in which every town kept its own hour, set by the sun, and in which a journey from Paddington to Bristol crossed a frontier in time as real as any county boundary. How that frontier disappeared, and what was gained and lost with it, is the subject of the chapters that follow.',
        "The story is usually told as a triumph of efficiency: the railway needed a single time, and the nation obligingly adopted it. The sources tell a more interesting tale. Standard time was adopted piecemeal, company by company and town by town, and for several decades Britain lived with two hours at once, the railway's and the sun's. Courts, churches, town councils and ordinary travellers argued about which was the real one, and their arguments reveal a good deal about Victorian ideas of authority, locality and progress.",
      ],
    },
    {
      heading: 'Preface (continued)',
      paragraphs: [
        'The book is organised chronologically. The first chapter describes the world of local time and the problems it posed for the early railways. The second follows the adoption of London time by the railway companies in the 1840s, and the role of the Railway Clearing House in coordinating it. The third turns to the telegraph, which made it possible to send the exact time from the Royal Observatory at Greenwich to distant towns. The last two chapters examine the resistance of some towns and the slow legal recognition of standard time, which came only in 1880.',
        'Throughout, I have tried to keep in view the people who actually lived with these changes: the station masters who kept two clocks, the guards who carried watches set to London time, the vicars who rang their bells by the sun, and the travellers who missed their trains because they trusted the wrong hour. Their experience is recorded in letters to newspapers, in company rule books and in the minutes of town councils, and it forms the backbone of the account.',
        'I owe thanks to the archivists of several railway collections and county record offices, and to colleagues who read drafts of individual chapters. Parts of the third chapter appeared in an earlier form as a conference paper, and I am grateful to its audience for questions that sharpened the argument considerably. Any errors that remain are of course my own, and I hope that readers who know the history of particular lines better than I do will forgive the simplifications that a general survey requires.',
      ],
    },
    {
      heading: '1. When Bristol Was Ten Minutes Late',
      paragraphs: [
        "Before the railways, there was no reason for a town to share its time with any other. Each place set its public clocks by the sun, so that noon fell when the sun stood highest over the local church. Because the earth turns from west to east, noon arrived later the further west one went. Bristol's noon came some ten minutes after London's, Exeter's later still, and Plymouth's later again. For a traveller on horseback or in a stage coach, such differences were too small to notice; a journey of several days absorbed them without difficulty.",
        'Local time was not merely a convenience but a part of civic identity. The town clock, often paid for by public subscription and mounted on the church tower or the market hall, regulated markets, courts, schools and services. Its accuracy was a point of pride, and its keeper was a person of some standing. To tell a town that its clock was wrong, because a company in London kept a different hour, was to question a local authority that had never before been challenged.',
        'The mail coaches had already made the difference faintly visible. Guards on the long-distance routes carried timepieces that they adjusted as they travelled, gaining minutes when heading east and losing them when heading west. But the coaches were slow, and the adjustments were informal. It was the speed and the rigid timetables of the railway that turned a curiosity of astronomy into a daily problem of administration. A train that left London at a fixed minute had to arrive at a fixed minute, and someone had to decide whose minute that was.',
      ],
    },
    {
      heading: 'Two hours on one platform',
      paragraphs: [
        'The Great Western Railway, whose line ran westward from London towards Bristol, was among the first companies to confront the problem directly. From the end of 1840 it ran all its trains by London time, which its timetables explained to passengers. Stations along the line thus displayed an hour that might differ by several minutes from the clock in the town they served. Some companies fitted station clocks with two minute hands, one for London and one for local time, a device that captured perfectly the awkward coexistence of the two systems.',
        "Other companies followed during the 1840s, and in 1847 the Railway Clearing House, the body that settled accounts between the different lines, recommended that all of them adopt Greenwich time. By the end of the decade most had done so. The decision was practical rather than patriotic: trains that passed from one company's tracks to another's needed a single schedule, and the accidents that followed confusion over times gave the question a grim urgency. A missed signal or a misread clock on a single-track line could be fatal.",
        'For passengers, the change was experienced first as a series of small humiliations. Travellers who arrived at the station by the town clock found their train already gone, and letters of complaint to local newspapers multiplied. Some correspondents accused the companies of arrogance; others mocked the townspeople who clung to an hour that no longer governed anything important. The platform became a place where two ideas of time, one local and one national, stood side by side. Neither side was entirely wrong, which is why the argument lasted so long.',
      ],
    },
    {
      heading: 'The telegraph and the Greenwich signal',
      paragraphs: [
        'Adopting London time was one thing; knowing it accurately was another. In the early years, railway guards carried watches set in London and delivered the time to stations along the line, much as the mail guards had done. The electric telegraph transformed this arrangement. From the early 1850s, time signals generated at the Royal Observatory at Greenwich were sent along the telegraph wires, so that a clock in a distant town could be corrected to the second at a fixed hour each day.',
        "The telegraph gave standard time a scientific authority that the railway companies alone could not supply. Greenwich time was no longer simply the time of the capital but the time of the observatory, measured by astronomers and distributed by a technology that seemed to abolish distance itself. Town councils that had resisted the railway's hour found it harder to resist the stars, and many public clocks were quietly reset during the 1850s. Some towns added a second dial so that citizens could compare the two hours for themselves.",
        "Resistance did not vanish overnight. Several cathedral and market towns kept local time on their public clocks well into the 1850s, and a few clergymen insisted that divine service should begin by the sun. In legal matters the question remained genuinely uncertain: a court that opened at ten o'clock might open at two different moments depending on which clock was consulted, and there were cases in which the outcome of a dispute turned on precisely this ambiguity. Lawyers, not engineers, had the last word on what time it was.",
      ],
    },
    {
      heading: 'Towards a legal hour',
      paragraphs: [
        'By the 1870s, Greenwich time had become the ordinary time of most of Britain, but it still had no legal standing. Courts continued to interpret statutory hours by local mean time, and the discrepancy occasionally produced absurd results. The Statutes (Definition of Time) Act of 1880 finally settled the matter by declaring that any expression of time in an Act of Parliament, a deed or any other legal instrument should be understood as Greenwich mean time in Great Britain and Dublin mean time in Ireland.',
        'The act ratified a transformation that had already taken place in practice. What it recorded was the victory of a networked, national time over the many local times of the pre-railway world. That victory was not the result of a single decision but of forty years of compromise among railway companies, astronomers, telegraph engineers, town councils and travellers. It also set the stage for the international conference held in Washington in 1884, which chose Greenwich as the prime meridian of the world.',
        'The chapters that follow examine each stage of this process in more detail. Their common argument is that standard time was a social achievement as much as a technical one. It required people to accept that the hour on their wall should be determined elsewhere, by institutions they did not control, for the sake of a coordination whose benefits were felt unevenly. The modern experience of time, synchronised and indifferent to place, began on the platforms of the Victorian railways.',
      ],
    },
  ],
};

// ---------------------------------------------------------------------------------------------
// 5. Zheng He (English article, pp. 57-60, no bibliography entry)

const zhengHe: ExampleSource = {
  file: 'zheng-he-voyages.pdf',
  language: 'en',
  title: 'Tribute and Treasure Ships: Rethinking the Voyages of Zheng He, 1405–1433',
  author: 'David K. Liang',
  header: 'Journal of Maritime Asia, vol. 8 (2012)',
  numbering: { style: 'arabic', start: 57 },
  pageLabels: true,
  info: { title: true, author: true, created: '2012-05-07T16:45:00Z' },
  typeset: true,
  pages: [
    {
      heading: 'Tribute and Treasure Ships: Rethinking the Voyages of Zheng He, 1405–1433',
      paragraphs: [
        'David K. Liang',
        'Between 1405 and 1433, seven great fleets sailed from the coast of southern China into the Indian Ocean under the command of the eunuch admiral Zheng He. They visited the ports of Champa, Java and Sumatra, crossed to Ceylon and the Malabar coast, and reached Hormuz at the mouth of the Persian Gulf and, on the later voyages, the towns of the East African coast. By any standard of the age these were enormous expeditions: the largest fleets are said to have numbered some two hundred and fifty vessels and more than twenty-five thousand men.',
        'This article reconsiders the purpose of the voyages. Popular accounts often present them as a missed opportunity, imagining that China might have discovered Europe before Europe discovered the world. Such counterfactuals tell us more about modern preoccupations than about the early Ming court. Read in the light of Chinese sources, the voyages appear instead as instruments of a particular vision of imperial order, in which foreign rulers were drawn into a ceremonial relationship of tribute with the Son of Heaven.',
      ],
    },
    {
      heading: "1. An emperor's fleet",
      paragraphs: [
        'The voyages were the personal project of the Yongle emperor, who had seized the throne from his nephew in 1402 and needed to demonstrate the legitimacy of his rule. Sending magnificent embassies abroad, and receiving envoys who acknowledged his supremacy, was one way of doing so. Zheng He himself, a Muslim from Yunnan who had entered the imperial household as a boy, belonged to the circle of eunuchs whom the emperor trusted more than the regular bureaucracy. The fleets thus reflected the politics of the court as much as any commercial calculation.',
        'The size of the largest treasure ships remains a subject of debate. Later texts attribute to them dimensions that many naval historians find impossible for wooden vessels, and recent estimates are considerably more modest. Yet even the cautious figures describe ships much larger than those used by Portuguese navigators at the end of the century. The shipyards near Nanjing, which built and repaired the fleets, mobilised timber, labour and materials on a scale that only a powerful state could command.',
        "The fleets carried silk, porcelain and other manufactured goods, which were offered as gifts to foreign rulers and exchanged for local products such as spices, precious woods, gems and exotic animals. A giraffe brought back from the Indian Ocean in 1414 was presented at court as a qilin, an auspicious creature whose appearance signalled the virtue of the ruler. Officials composed poems in honour of the animal, and painters recorded its arrival. Such objects mattered less for their value than for what they said about the emperor's reach.",
      ],
    },
    {
      heading: '2. Force, diplomacy and tribute',
      paragraphs: [
        "The expeditions were not purely peaceful. The fleets carried large numbers of soldiers, and on several occasions they used them. In 1407 Zheng He's forces defeated a Chinese pirate leader established at Palembang and brought him to Nanjing for execution. On the third voyage the fleet fought a ruler in Ceylon and carried him captive to China. These episodes show that the voyages aimed to impose order on the sea lanes and to punish those who refused to recognise the emperor's authority.",
        'Most of the time, however, the fleets worked through diplomacy. Their arrival in a port was followed by ceremonies in which imperial edicts were read, gifts exchanged and local rulers invited to send embassies to China. Some did so repeatedly, and several rulers travelled to the Ming court in person. The sultanate of Malacca, founded shortly before the voyages began, benefited particularly from this relationship, which protected it against its powerful neighbours and made its port a staging post for the fleets.',
        'Trade followed in the wake of diplomacy. The tribute system allowed foreign envoys to bring goods to China and to receive Chinese products in return, and private merchants often travelled in their company. Yet the Ming state also prohibited private overseas trade by its own subjects, so that the voyages concentrated commerce in the hands of the court rather than encouraging it. This paradox, an official fleet of unprecedented size in a state that restricted maritime enterprise, is central to understanding why the voyages came to an end.',
      ],
    },
    {
      heading: '3. Why the voyages stopped',
      paragraphs: [
        'After the death of the Yongle emperor in 1424, the voyages were suspended. A seventh and final expedition sailed under his grandson in 1431 and returned in 1433; Zheng He appears to have died during or shortly after it. No further fleets were sent. The reasons were several. The voyages were immensely expensive at a time when the treasury faced the costs of campaigns against the Mongols, the rebuilding of the Grand Canal and the transfer of the capital to Beijing.',
        'Court politics also played its part. The scholar-officials of the regular bureaucracy had long resented the influence of the eunuchs, and they regarded the voyages as an extravagance that served imperial vanity rather than the welfare of the people. Later stories claim that records of the expeditions were deliberately destroyed to prevent any revival; whether or not this is true, the voyages were soon remembered as an exceptional episode rather than a model to follow. The northern frontier, not the southern sea, became the main preoccupation of the state.',
        'The end of the voyages did not mean the end of Chinese activity in the Indian Ocean and the South China Sea. Private merchants, many of them from Fujian and Guangdong, continued to trade throughout the region, often in defiance of official prohibitions. What ended in 1433 was a form of state-led maritime diplomacy. Historians who wish to understand the fleets must therefore resist the temptation to read them through the lens of later European expansion, which pursued quite different ends by quite different means.',
      ],
    },
  ],
};

// ---------------------------------------------------------------------------------------------
// 6. The Hanseatic Kontore (English article, pp. 87-91)

const hanse: ExampleSource = {
  file: 'hanse-kontore.pdf',
  language: 'en',
  title: 'Houses of Strangers: The Kontore of the Hanseatic League, 1350–1600',
  author: 'Anna-Lena Brückner',
  header: 'Baltic and North Sea Studies 22 (2017)',
  numbering: { style: 'arabic', start: 87 },
  pageLabels: true,
  info: { title: true, author: true, created: '2017-10-11T11:20:00Z' },
  citekey: 'bruckner2017kontore',
  typeset: true,
  pages: [
    {
      heading: 'Houses of Strangers: The Kontore of the Hanseatic League, 1350–1600',
      paragraphs: [
        'Anna-Lena Brückner',
        'The Hanseatic League never had a capital, an army of its own or a permanent government. It was an association of merchants and, later, of towns, held together by shared privileges abroad and by periodic assemblies in Lübeck. Its most visible institutions lay not in Germany but at the edges of its commercial world, in four great foreign settlements known as Kontore: the Peterhof in Novgorod, the German Bridge in Bergen, the Steelyard in London and the community of merchants at Bruges. This article compares these four settlements and asks what they reveal about the nature of the league itself.',
        "The Kontore were at once trading posts, legal communities and diplomatic outposts. Their members lived under their own statutes, elected their own aldermen, kept their own treasuries and seals, and negotiated directly with the princes and towns in whose territory they stood. They were, in a sense, small merchant republics planted on foreign soil, and their privileges were the league's most precious possession. Defending those privileges, far more than any common policy, was what gave the Hanse its coherence. Without them, the league would have had little to hold it together.",
      ],
    },
    {
      heading: '1. Novgorod: furs, wax and a walled court',
      paragraphs: [
        'The oldest of the Kontore, the Peterhof in Novgorod, took its name from the church of St Peter around which it was built. German merchants came there in two seasonal companies, the summer travellers who arrived by sea and the winter travellers who came over the ice, to buy furs and wax in exchange for cloth, salt and silver. The court was enclosed by a wall, its gates were locked at night and watchmen with dogs patrolled it. The church served not only for worship but also as a warehouse and strongroom for the most valuable goods.',
        'Life within the court was governed by a detailed code of rules, the Schra, which was revised many times over the centuries. It regulated the conduct of trade, the quality of goods, the resolution of disputes and the behaviour of members, forbidding among other things the sale of goods on credit to Russian partners. The rules reflect a community acutely conscious of its vulnerability, anxious to avoid any incident that might provoke the Novgorodians to close the court. Breaches of the rules were punished with fines and, in serious cases, with exclusion from the Russian trade.',
        'That vulnerability proved real. After Novgorod was absorbed by Muscovy, Ivan III closed the Peterhof in 1494, imprisoned the merchants and confiscated their goods. The court later reopened, but it never regained its former importance, and the Russian trade shifted towards the Livonian towns. The history of the Peterhof shows how much the Kontore depended on the goodwill of local rulers, and how quickly a privilege could be revoked. No statute, however carefully drafted, could protect a community whose host decided it was no longer welcome.',
      ],
    },
    {
      heading: '2. Bergen: stockfish and celibacy',
      paragraphs: [
        "In Bergen the Hanseatic merchants occupied a row of wooden buildings along the harbour known as the German Bridge. Their business was stockfish, cod dried in the wind of northern Norway, which they bought from the fishermen of the north in exchange for grain, flour, beer and cloth. Because the northern fisheries depended on imported grain, the Hanseatic merchants acquired a powerful hold over the Norwegian economy, and the Kontor's relations with the Norwegian crown and the citizens of Bergen were often tense.",
        'The Bergen Kontor was remarkable for its social organisation. Its members were mostly young unmarried men, apprentices and journeymen sent from Lübeck and other towns for years at a time, and they were forbidden to marry or to keep households in the town. Discipline was harsh, and the initiation rituals for newcomers, which included beatings and duckings in the harbour, became notorious. The Kontor functioned as a kind of commercial school as well as a trading house, forming the next generation of Hanseatic merchants.',
        'The rule of celibacy had a clear commercial logic. Merchants who married local women might acquire local loyalties, local property and local rights, and so blur the boundary between the privileged foreign community and the host society. By keeping its members apart, the Kontor preserved the distinctiveness on which its privileges depended. It also ensured that wealth accumulated in Bergen flowed back to the home towns of the league. Separation, in other words, was not a by-product of foreignness but a deliberate policy.',
      ],
    },
    {
      heading: '3. London and Bruges',
      paragraphs: [
        "The Steelyard in London, on the north bank of the Thames, was the Hanse's principal base in England. Its merchants exported English cloth and imported timber, grain, wax, furs and metals from the Baltic. They enjoyed customs privileges more generous than those granted to English merchants themselves, a situation that became increasingly contested as English trade expanded in the fifteenth and sixteenth centuries. The privileges were confirmed and restricted several times, and in 1598 the Steelyard was finally closed by order of the queen.",
        'Bruges differed from the other Kontore in that it had no enclosed compound. The Hanseatic merchants there lived in rented houses and inns across the town, and met in the refectory of a convent for their assemblies. Bruges was the great market of north-western Europe, where Hanseatic goods met Flemish cloth, Italian luxuries and the wines of France, and its openness made it the most cosmopolitan of the Kontore. When the commercial centre of the Low Countries shifted to Antwerp, the Kontor followed, but with diminished importance.',
        "The league used its Kontore as instruments of economic pressure. On several occasions it ordered its merchants to leave Bruges and transferred the staple to another town, in order to force the Flemish authorities to respect its privileges. Such boycotts were effective only when the member towns acted together, and they reveal both the strength and the limits of an organisation that could coordinate commercial action without possessing any state power of its own. The threat of departure was the Hanse's most characteristic weapon.",
      ],
    },
    {
      heading: 'Conclusion',
      paragraphs: [
        'The four Kontore were very different places, shaped by the goods they traded and by the societies that hosted them. Yet they shared a common logic. Each was a privileged community of foreign merchants, living under its own law, negotiating collectively with local powers and maintaining a deliberate distance from the host society. Together they formed the institutional backbone of a league that was otherwise loosely organised and frequently divided. Their decline in the sixteenth century, as territorial states grew stronger and less willing to tolerate foreign enclaves, marked the end of the Hanse as a major power.',
        'Comparing the Kontore with the trading diasporas of other regions, from the Genoese colonies of the Levant to the Chinese merchant communities of South-East Asia, suggests that the Hanseatic model was one solution among several to a universal problem: how to trade safely in a place where one is a stranger. The answer of the Hanse was corporate privilege, collective discipline and the constant threat of withdrawal. It worked for three centuries, which is longer than many empires have lasted.',
      ],
    },
  ],
};

// ---------------------------------------------------------------------------------------------
// 7. La Commune de Paris (French article, printed pp. 33-36, no /PageLabels)

const commune: ExampleSource = {
  file: 'commune-paris-1871.pdf',
  language: 'fr',
  title: 'La Commune de Paris, une révolution municipale ? Décrets, quartiers et pouvoir local (mars-mai 1871)',
  author: 'Claire Ménard',
  header: "Revue d'histoire urbaine, n° 58, 2021",
  numbering: { style: 'arabic', start: 33 },
  pageLabels: false,
  info: { title: true, author: true, created: '2021-04-19T07:50:00Z' },
  citekey: 'menard2021commune',
  typeset: true,
  pages: [
    {
      heading: 'La Commune de Paris, une révolution municipale ? Décrets, quartiers et pouvoir local (mars-mai 1871)',
      paragraphs: [
        'Claire Ménard',
        "Le 18 mars 1871, la tentative du gouvernement d'Adolphe Thiers de reprendre les canons de la Garde nationale entreposés à Montmartre tourne à l'émeute. Les soldats fraternisent avec la foule, deux généraux sont tués, et le gouvernement se replie à Versailles. Paris, qui sort d'un siège de plusieurs mois et d'une capitulation vécue comme une trahison, se retrouve livré à lui-même. Le 26 mars, les électeurs parisiens désignent un conseil municipal qui prend, deux jours plus tard, le nom de Commune de Paris.",
        "L'historiographie a longtemps lu la Commune soit comme la première révolution prolétarienne, selon la lecture marxiste, soit comme une flambée de violence vaincue par l'ordre républicain. Cet article propose de la considérer d'abord pour ce qu'elle prétendait être : une révolution municipale, qui réclamait pour Paris le droit de s'administrer lui-même et rêvait d'une France organisée en fédération de communes autonomes. Cette perspective éclaire à la fois ses réalisations et ses contradictions. Elle permet aussi de relier la Commune à des traditions parisiennes bien plus anciennes que l'insurrection elle-même.",
      ],
    },
    {
      heading: '1. Gouverner une ville en guerre',
      paragraphs: [
        "Le conseil de la Commune, qui compte environ quatre-vingts membres, réunit des ouvriers, des artisans, des journalistes et des membres des professions libérales, aux sensibilités très diverses : jacobins nostalgiques de 1793, blanquistes partisans d'une dictature révolutionnaire, proudhoniens attachés au mutualisme, membres de l'Internationale. Il se répartit en commissions chargées des finances, de la guerre, de la justice, du travail et des subsistances, qui tentent de faire fonctionner une capitale de près de deux millions d'habitants. Les débats y sont vifs, et les divisions entre majorité et minorité s'aggravent au fil des semaines.",
        "La continuité administrative est assurée, souvent mieux qu'on ne l'a dit. Les services de la poste, de l'octroi et de l'assistance publique continuent de fonctionner, et la Banque de France, que la Commune n'ose pas saisir, lui consent des avances qui financent la solde des gardes nationaux. Cette prudence financière a été sévèrement jugée par les révolutionnaires des générations suivantes ; elle témoigne surtout d'un respect de la légalité municipale qui caractérise une grande partie des élus. La Commune se voulait un gouvernement régulier, non une simple insurrection.",
        "Dans les arrondissements, les mairies deviennent des lieux de pouvoir local très actifs. Elles distribuent des secours, organisent des cantines, recensent les logements vacants et servent de point de rencontre aux clubs et aux comités de vigilance. L'autonomie revendiquée pour Paris se prolonge ainsi, à une échelle plus fine, dans une vie de quartier où les habitants prennent directement part aux affaires communes. C'est peut-être à ce niveau que l'idéal communaliste fut le plus concrètement vécu. Les archives des mairies, souvent détruites, n'en gardent malheureusement que des traces éparses.",
      ],
    },
    {
      heading: '2. Les décrets sociaux',
      paragraphs: [
        "L'œuvre législative de la Commune est brève mais significative. Dès le 29 mars, elle accorde la remise des loyers dus depuis octobre 1870, mesure attendue par une population appauvrie par le siège. Elle suspend la vente des objets déposés au Mont-de-Piété, puis autorise le retrait gratuit des gages de faible valeur, outils et vêtements en particulier. Le 2 avril, elle décrète la séparation de l'Église et de l'État et la suppression du budget des cultes, devançant de plus de trente ans la loi de 1905.",
        "Le monde du travail fait l'objet de plusieurs décisions. Un décret d'avril prévoit que les ateliers abandonnés par leurs patrons seront recensés et confiés à des associations coopératives d'ouvriers. Un autre interdit le travail de nuit dans les boulangeries, revendication ancienne des ouvriers boulangers, qui suscite la colère des patrons et dont l'application est plusieurs fois repoussée. Les amendes et retenues sur salaires sont interdites dans les ateliers et administrations. Ces mesures, modestes au regard des ambitions proclamées, touchent pourtant la vie quotidienne de milliers de travailleurs.",
        "Les femmes jouent un rôle important dans cette effervescence, même si elles ne votent pas et ne siègent pas au conseil. L'Union des femmes pour la défense de Paris et les soins aux blessés organise des ateliers de couture pour l'habillement des gardes nationaux, et des militantes réclament l'égalité des salaires et l'instruction des filles. Des écoles professionnelles et laïques sont ouvertes dans plusieurs arrondissements. Ces initiatives, interrompues par la défaite, ont longtemps été effacées par l'image caricaturale des « pétroleuses ».",
      ],
    },
    {
      heading: '3. La Semaine sanglante et la mémoire',
      paragraphs: [
        "Le 21 mai, l'armée versaillaise entre dans Paris par une porte mal gardée. Pendant une semaine, elle reconquiert la ville quartier par quartier, face à des barricades défendues avec acharnement mais sans commandement coordonné. Les communards fusillent des otages, parmi lesquels l'archevêque de Paris, et incendient plusieurs édifices publics, dont l'Hôtel de Ville et les Tuileries. La répression versaillaise est d'une tout autre ampleur : des milliers de Parisiens sont exécutés sommairement, et les derniers combattants sont fusillés au cimetière du Père-Lachaise, contre le mur qui porte aujourd'hui le nom de mur des Fédérés.",
        "Le bilan humain reste débattu, les estimations variant de plusieurs milliers à plus de dix mille morts. Des dizaines de milliers de personnes sont arrêtées, jugées par des conseils de guerre, déportées en Nouvelle-Calédonie ou contraintes à l'exil. L'amnistie n'intervient qu'en 1880. La Commune devient dès lors un enjeu de mémoire, revendiquée par le mouvement ouvrier international et honnie par les conservateurs. Chaque année, un cortège se rend encore au mur des Fédérés. Le souvenir de la Commune a ainsi nourri pendant plus d'un siècle des récits rivaux, militants ou hostiles.",
        "Considérée comme une révolution municipale, la Commune apparaît comme l'aboutissement d'une longue revendication parisienne, celle d'une capitale privée depuis la Révolution d'un maire élu et d'une véritable autonomie. Elle renoue aussi avec une tradition de politique des subsistances et de protection des plus pauvres qui remonte à l'an II. Sa défaite a durablement marqué la Troisième République, qui refusa à Paris un maire élu jusqu'en 1977. La méfiance envers l'autonomie de la capitale fut l'un des legs les plus durables de la Semaine sanglante, bien au-delà des générations qui l'avaient vécue.",
      ],
    },
  ],
};

// ---------------------------------------------------------------------------------------------
// 8. L'exode rural (French book chapter, printed pp. 201-204, no /Info Title, no bib entry)

const exodeRural: ExampleSource = {
  file: 'exode-rural.pdf',
  language: 'fr',
  title: "Quitter la terre : l'exode rural en France au XIXe siècle",
  author: 'Paul Thévenin',
  header: 'Les campagnes françaises au XIXe siècle — chapitre 9',
  numbering: { style: 'arabic', start: 201 },
  pageLabels: false,
  info: { title: false, author: true, created: '1998-02-16T12:00:00Z' },
  typeset: true,
  pages: [
    {
      heading: "Quitter la terre : l'exode rural en France au XIXe siècle",
      paragraphs: [
        'Paul Thévenin',
        "Au milieu du XIXe siècle, la France demeure un pays profondément rural. Lors du recensement de 1846, près des trois quarts de ses habitants vivent dans des communes de moins de deux mille âmes, et la population des campagnes atteint alors, en chiffres absolus, son niveau le plus élevé. À partir de ce moment, elle ne cessera plus de diminuer. Ce chapitre étudie ce mouvement de longue haleine que les contemporains ont appelé l'exode rural, en s'interrogeant sur ses causes, ses rythmes et ses formes, très différentes d'une région à l'autre.",
        "Le mot d'exode, qui suggère une fuite massive et soudaine, est en partie trompeur. Le dépeuplement des campagnes françaises fut lent, si on le compare à celui de l'Angleterre, et la population urbaine ne dépasse celle des campagnes qu'au recensement de 1931. La faible natalité française, précoce et singulière en Europe, explique en partie cette lenteur : les campagnes avaient moins d'enfants à envoyer vers les villes que les régions rurales de l'Allemagne ou de l'Italie. Les historiens parlent donc plutôt d'un lent dépeuplement que d'une hémorragie.",
      ],
    },
    {
      heading: '1. Des migrations saisonnières aux départs définitifs',
      paragraphs: [
        "Bien avant l'exode proprement dit, les paysans des régions pauvres avaient l'habitude de partir. Chaque printemps, les maçons de la Creuse et du Limousin gagnaient à pied les chantiers de Paris et de Lyon, pour ne revenir qu'à l'entrée de l'hiver avec leurs économies. Les Auvergnats se faisaient porteurs d'eau, marchands de charbon ou chaudronniers, les Savoyards ramoneurs, les Pyrénéens colporteurs. Ces migrations temporaires permettaient aux familles de conserver leur exploitation en complétant des revenus agricoles insuffisants. Elles entretenaient aussi, entre le village et la ville, des liens que l'exode définitif allait utiliser.",
        "Au fil du siècle, ces allers et retours se transforment en installations durables. Le migrant qui revenait chaque hiver finit par rester en ville, où il fait venir sa femme ou se marie. Des réseaux se constituent, fondés sur l'origine commune : on s'embauche par recommandation d'un cousin, on loge dans les garnis tenus par des compatriotes, on se retrouve dans les mêmes cafés et les mêmes quartiers. La migration rurale n'est pas un saut dans l'inconnu, mais le prolongement en ville de solidarités villageoises.",
        "Les femmes occupent une place importante et souvent négligée dans ces départs. Jeunes filles placées comme domestiques chez des bourgeois des villes, nourrices venues allaiter les enfants des familles parisiennes, ouvrières du textile ou de la confection, elles contribuent largement au peuplement des villes. Leur départ, souvent définitif, pèse lourdement sur l'équilibre démographique des villages. Les registres de mariage des villes montrent combien de ces migrantes épousaient à leur tour des hommes venus d'ailleurs, rendant le retour au pays de plus en plus improbable.",
      ],
    },
    {
      heading: '2. Les causes du départ',
      paragraphs: [
        "La crise de l'artisanat et de l'industrie rurale joue un rôle décisif. Dans beaucoup de régions, les paysans tiraient une part importante de leurs revenus du tissage à domicile, de la clouterie ou de la petite métallurgie. La concentration de ces activités dans les usines urbaines, au cours de la seconde moitié du siècle, prive les campagnes de ressources complémentaires indispensables. Ce sont souvent les journaliers et les petits exploitants, plutôt que les paysans aisés, qui partent les premiers. Les propriétaires plus aisés, eux, restent et profitent souvent de la terre libérée.",
        "Les chemins de fer accélèrent le mouvement. En réduisant le coût et la durée du voyage, ils rendent la ville plus accessible et plus familière ; en apportant dans les bourgs les produits manufacturés, ils achèvent de ruiner les artisans de village. Le plan de développement des lignes secondaires lancé à la fin des années 1870 relie même des cantons isolés aux grands centres, si bien que la gare devient, pour beaucoup de jeunes ruraux, le point de départ d'une autre vie.",
        "Les crises agricoles font le reste. La maladie de la vigne, le phylloxéra, ravage à partir des années 1870 les vignobles du Midi puis de presque tout le pays, ruinant des milliers de petits vignerons. La baisse des prix agricoles, liée à la concurrence des céréales américaines et russes, frappe ensuite les régions céréalières. L'école, le service militaire et la presse, enfin, diffusent des modèles de vie urbaine qui rendent la condition paysanne moins enviable aux yeux des jeunes générations.",
      ],
    },
    {
      heading: '3. Des campagnes transformées',
      paragraphs: [
        "L'exode rural ne vide pas seulement les villages : il les transforme. Le départ des plus pauvres réduit la pression sur la terre, fait monter les salaires agricoles et permet à ceux qui restent d'agrandir leurs exploitations. Dans certaines régions, le dépeuplement s'accompagne ainsi d'une amélioration des conditions de vie et d'une modernisation de l'agriculture. Dans d'autres, les régions de montagne en particulier, il entraîne l'abandon des terres les plus ingrates, la fermeture des écoles et le vieillissement des populations.",
        "À l'échelle nationale, ce mouvement nourrit la croissance de Paris, qui passe d'environ un demi-million d'habitants au début du siècle à plus de deux millions et demi à la fin, ainsi que celle de Lyon, de Marseille et des villes industrielles du Nord. Il contribue à un déséquilibre entre la capitale et le reste du territoire que les géographes du XXe siècle dénonceront en parlant d'un « désert français ». L'exode rural apparaît ainsi comme l'une des transformations de longue durée qui ont le plus profondément façonné la France contemporaine.",
      ],
    },
  ],
};

// ---------------------------------------------------------------------------------------------
// 9. Printing and the Reformation (English article, pp. 301-305)

const printing: ExampleSource = {
  file: 'printing-reformation.pdf',
  language: 'en',
  title: 'Cheap Print and the Common Man: Pamphlets and the Early Reformation in Germany, 1517–1525',
  author: 'Katharine Ellery',
  header: 'Reformation Studies Quarterly 14 (2010)',
  numbering: { style: 'arabic', start: 301 },
  pageLabels: true,
  info: { title: true, author: true, created: '2010-01-25T09:05:00Z' },
  citekey: 'ellery2010pamphlets',
  typeset: true,
  pages: [
    {
      heading: 'Cheap Print and the Common Man: Pamphlets and the Early Reformation in Germany, 1517–1525',
      paragraphs: [
        'Katharine Ellery',
        'When Martin Luther circulated his theses on indulgences in the autumn of 1517, he intended them for academic debate. Within weeks they had been printed, translated into German and read far beyond the university of Wittenberg. This rapid passage from the lecture hall to the market place has made the early Reformation a classic case in the history of communication. This article examines the pamphlet literature of the years between 1517 and 1525 and asks how far the printing press can be said to have made the Reformation, and how far the Reformation made the press.',
        'Printing with movable type had been practised in the German lands for more than half a century before 1517, but its products had been dominated by Latin works for learned readers: bibles, liturgical books, classical texts and legal commentaries. The religious controversy transformed this market. Small, cheap pamphlets in the vernacular, usually in quarto and rarely longer than a few sheets, suddenly became the most dynamic sector of the trade, and printers in dozens of towns competed to supply them.',
      ],
    },
    {
      heading: '1. The pamphlet boom',
      paragraphs: [
        'The numbers are striking even on the most cautious estimates. The output of German-language pamphlets rose several-fold in the early 1520s, reaching a peak around 1523 and 1524. Luther himself was by far the most printed author: his sermons, open letters and devotional tracts appeared in edition after edition, reprinted without permission by printers who knew that his name on a title page would sell. No earlier author had enjoyed anything like this reach during his own lifetime. Printers competed to be first with each new work, and a popular sermon could be reprinted in several towns within a single month.',
        'The pamphlet suited the controversy perfectly. It was short enough to be printed in a day or two, cheap enough to be bought by artisans, and small enough to be carried, hidden or passed from hand to hand. Its title pages often carried woodcut illustrations that made the argument visible at a glance: the pope as a beast or the monk as a wolf, set against the simple preacher with his open Bible. Workshops such as that of Lucas Cranach in Wittenberg produced images that became instantly recognisable across the Empire.',
        'Printers had commercial as well as religious motives. The evangelical pamphlet was a product with a reliable market, and many printers published whatever sold, sometimes issuing works on both sides of the dispute. The speed of reprinting meant that a successful text could appear in a dozen towns within a few months, each edition slightly altered, abridged or furnished with new illustrations. The Reformation message was thus multiplied by a decentralised industry that no single authority directed. Its very lack of coordination made it remarkably hard to stop.',
      ],
    },
    {
      heading: '2. Reading aloud: how pamphlets reached the unlettered',
      paragraphs: [
        'Literacy in the German lands was low by modern standards, perhaps a small minority of the population overall, though considerably higher among townsmen. It would be wrong, however, to conclude that the pamphlets reached only the literate. Texts were read aloud in taverns, workshops, market places and private houses, and their contents were repeated, discussed and argued over by those who had only heard them. Many pamphlets were written with this oral use in mind, in the form of dialogues between a peasant and a priest, or of sermons meant to be heard.',
        'Preaching and print reinforced each other. Evangelical preachers took up the arguments of the pamphlets in the pulpit, and printed sermons carried the voice of the preacher to congregations he would never see. Songs and hymns, printed on single sheets, spread the new teaching in a form that could be memorised and sung. The Reformation was therefore a multimedia event, in which the printed word was one element among many, though the element that allowed the message to travel fastest and furthest.',
        'Catholic authors responded in kind, and some of them wrote with considerable skill. Yet their pamphlets were fewer, less often reprinted and less widely read. Many defenders of the old church hesitated to debate doctrine in the vernacular before lay readers, believing that such questions belonged to theologians. This reluctance handed the initiative to their opponents during the decisive early years. By the time Catholic printing caught up, the evangelical message had established itself in many towns, and the terms of public debate had been set by the reformers.',
      ],
    },
    {
      heading: '3. Censorship in a fragmented Empire',
      paragraphs: [
        "The Edict of Worms in 1521 declared Luther an outlaw and forbade the printing, sale and reading of his works. In principle, this should have ended the pamphlet campaign. In practice, the political fragmentation of the Empire made the edict almost impossible to enforce. Each prince and each imperial city was responsible for censorship within its own territory, and many of them sympathised with the reformers or saw no reason to harm a profitable local trade. A text banned in one town could be printed openly a day's journey away.",
        "Printers learned to protect themselves. Some omitted their names and the place of printing from their title pages, or invented false ones. Others moved their presses to more tolerant jurisdictions. Authors wrote under pseudonyms or published anonymously. The very weakness of central authority that characterised the Holy Roman Empire thus became a condition of the Reformation's success, because no single power could silence the presses. A comparable campaign would have been far harder to sustain in a centralised monarchy such as France or England.",
        "The limits of this freedom became apparent in 1525. During the Peasants' War, the rebels' programme, the Twelve Articles, was printed in numerous editions within a few weeks and circulated throughout southern Germany. Luther's own pamphlets denouncing the rebels were equally widely printed. After the defeat of the peasants, princes of all confessions tightened their control over the press, and the spontaneous pamphlet culture of the early 1520s gave way to a more disciplined and official religious literature. The age of the free-ranging pamphlet was over almost as quickly as it had begun.",
      ],
    },
    {
      heading: 'Conclusion',
      paragraphs: [
        'Did printing make the Reformation? The evidence presented here suggests a qualified answer. The press did not create the grievances against the church, which were old and widespread, nor did it guarantee the success of the reformers, which depended on the decisions of princes and town councils. What printing did was to make possible a public debate of unprecedented speed and scale, in which ordinary people could follow and take part in a theological controversy as it unfolded. That public debate, rather than any single text, was the true novelty of the age.',
        'The early Reformation also transformed printing. It created a mass market for cheap vernacular texts, established the pamphlet and the illustrated broadsheet as instruments of persuasion, and taught printers, authors and authorities lessons about publicity and its control that would shape European politics for centuries. The religious conflicts of the following period, and the political revolutions after them, would all be fought in part with paper and ink. In that sense the pamphlets of the 1520s were the ancestors of every later campaign of opinion.',
      ],
    },
  ],
};

// ---------------------------------------------------------------------------------------------
// 10. The Little Ice Age (English article, printed pp. 12-15, no /PageLabels, no bib entry)

const littleIceAge: ExampleSource = {
  file: 'little-ice-age.pdf',
  language: 'en',
  title: 'Cold Summers, Thin Harvests: Climate and Subsistence in Northern Europe during the Little Ice Age',
  author: 'Jonas Lindqvist',
  header: 'Climate and Society in the Past 5 (2016)',
  numbering: { style: 'arabic', start: 12 },
  pageLabels: false,
  info: { title: true, author: true, created: '2016-08-30T13:10:00Z' },
  typeset: true,
  pages: [
    {
      heading: 'Cold Summers, Thin Harvests: Climate and Subsistence in Northern Europe during the Little Ice Age',
      paragraphs: [
        'Jonas Lindqvist',
        'The term Little Ice Age describes a period of generally cooler climate in the northern hemisphere that lasted, on most definitions, from the fourteenth to the middle of the nineteenth century. It was not a continuous cold spell. Cold decades alternated with milder ones, and the severity of the cooling varied from region to region. But its coldest phases, particularly the 1590s, the later seventeenth century and the early nineteenth, brought long winters, late springs and cool wet summers to much of Europe, with serious consequences for societies that depended on a single annual harvest.',
        'This article examines the relationship between climate and subsistence in northern Europe, from Scotland to Finland, during the coldest phases of the period. It argues against both the older view that ignored climate altogether and the newer temptation to treat it as a direct cause of famine. Cold summers created the conditions for crisis, but whether a poor harvest became a catastrophe depended on grain reserves, trade, relief policies and the distribution of land and power. The same weather could produce very different outcomes in neighbouring provinces.',
      ],
    },
    {
      heading: '1. Reading the climate of the past',
      paragraphs: [
        'Historians have no thermometer readings for most of the period, so they rely on indirect evidence. Tree rings record the growth conditions of each summer, and ice cores and lake sediments preserve traces of temperature and volcanic activity. Documentary sources add precise local detail: the dates on which rivers froze and thawed, the accounts of tithes and harvests, diaries recording the weather day by day, and above all the dates of the grape harvest, which in France and Switzerland have been used to reconstruct the warmth of spring and summer over several centuries.',
        'Combining these sources has produced a detailed picture of the European climate since the sixteenth century. Several of the coldest years followed large volcanic eruptions, which filled the upper atmosphere with fine particles that reflected sunlight. The eruption of Huaynaputina in Peru in 1600 was followed by an exceptionally cold summer in 1601 across much of the northern hemisphere, and the eruption of Tambora in 1815 produced the notorious year without a summer in 1816, when snow fell in parts of Europe and New England in June.',
        'A second cause was a reduction in solar activity. Between about 1645 and 1715, astronomers observed very few sunspots, and this period, known as the Maunder Minimum, broadly coincided with some of the coldest decades of the Little Ice Age in Europe. The connection between the two is still debated by climate scientists, but the coincidence has made the later seventeenth century a favoured field for historians interested in climate and crisis. Alpine glaciers advanced during these decades, in some places destroying farms and pastures that had been worked for generations.',
      ],
    },
    {
      heading: '2. Famine in the north: the 1690s',
      paragraphs: [
        'The 1690s offer the clearest example of a climatic crisis in northern Europe. A series of cold, wet summers ruined harvests across Scotland, Scandinavia and the Baltic. In Scotland, the years of dearth remembered as the ill years killed a significant share of the population in some regions and deepened the financial desperation that preceded the union with England. In Finland, the famine of 1695 to 1697 was even more severe: contemporary reports and later research suggest that a quarter to a third of the population died.',
        'Mortality did not come from hunger alone. Undernourished people fell victim to typhus, dysentery and other diseases, and the movement of beggars and vagrants in search of food spread infection from district to district. Many of the dead perished on the roads or in towns far from their homes. The crisis also had lasting effects on marriage and fertility: couples postponed marriage, births fell sharply, and some villages took a generation to recover their former population. Parish registers from these years record burials in numbers that local clergy had never seen before.',
        'Yet the 1690s also show the importance of human decisions. Regions connected to maritime trade, where grain could be imported from less affected areas, generally fared better than isolated inland districts. Governments that suspended exports, distributed seed corn and organised relief reduced mortality, while those that continued to collect taxes and export grain made matters worse. The same cold summer could have very different consequences depending on the institutions that met it. Climate set the test; society determined how many failed it.',
      ],
    },
    {
      heading: '3. Vulnerability and adaptation',
      paragraphs: [
        'Over the long run, the societies of northern Europe adapted to the colder climate in a variety of ways. Farmers sowed hardier crops, such as rye and oats rather than wheat, and later adopted the potato, which proved more resistant to cool summers than grain. Communities and states built public granaries to store surplus in good years. Improvements in transport and the integration of grain markets allowed regions struck by harvest failure to draw on supplies from elsewhere, as the cities of the Mediterranean had long done.',
        'These adaptations did not eliminate vulnerability, as the crisis of 1816 demonstrated, but they changed its character. By the early nineteenth century, a cold summer in northern Europe was more likely to cause high prices and hardship than outright mass mortality. The history of the Little Ice Age thus suggests that the impact of climate on human societies is mediated at every step by economic structures, political choices and accumulated experience, a lesson that retains its relevance in an age of climate change.',
      ],
    },
  ],
};

// ---------------------------------------------------------------------------------------------
// 11. Primary source: plague ordinance, Marseille 1720 (French, transcription)

const pesteMarseille: ExampleSource = {
  file: 'archives/peste-marseille-1720.pdf',
  language: 'fr',
  title: 'Ordonnance de Messieurs les Échevins et Assesseur de la ville de Marseille, concernant les précautions contre la maladie contagieuse',
  header: 'Fonds des ordonnances de police — Marseille, 1720 (transcription)',
  numbering: { style: 'arabic', start: 1 },
  pageLabels: false,
  info: { title: true, author: false, created: '2020-05-25T10:00:00Z' },
  primary: true,
  typeset: false,
  pages: [
    {
      heading: 'Ordonnance de Messieurs les Échevins et Assesseur de la ville de Marseille, concernant les précautions contre la maladie contagieuse',
      paragraphs: [
        'Du 3 août 1720. Transcription, orthographe modernisée.',
        "Les Échevins et Assesseur de la ville de Marseille, Lieutenants généraux de police, étant informés que la maladie contagieuse, qui s'est déclarée depuis quelques semaines dans plusieurs maisons de la vieille ville, y fait chaque jour de nouveaux progrès, et voulant par toutes les voies qui sont en leur pouvoir en arrêter le cours, conserver les habitants qui n'en sont point atteints et prévenir la communication du mal aux lieux voisins, ont jugé nécessaire, après en avoir délibéré avec Messieurs les Intendants de la Santé et les médecins de la ville, d'ordonner ce qui suit, pour être exactement observé sous les peines ci-après portées.",
        "Article premier. Il est ordonné à tous chefs de famille, maîtres et maîtresses de maison, de déclarer sans aucun délai au commissaire de leur quartier les personnes de leur maison qui se trouveront attaquées de fièvre, de bubons, de charbons ou de quelque autre accident suspect, à peine de cinq cents livres d'amende et de punition corporelle en cas de récidive. Les médecins et chirurgiens qui visiteront lesdits malades seront tenus d'en faire pareillement la déclaration au bureau de la Santé le jour même de leur visite, et ne pourront la taire sous quelque prétexte que ce soit.",
      ],
    },
    {
      paragraphs: [
        "Article II. Les maisons où il se sera trouvé des malades ou des morts de la contagion seront incontinent fermées, et il sera mis sur la porte une croix de couleur rouge, afin que chacun s'en puisse garder. Il est défendu à toutes personnes d'en sortir ni d'y entrer, à la réserve des médecins, chirurgiens et gens commis par nous, et il sera pourvu par les soins des commissaires des quartiers à la subsistance de ceux qui y seront renfermés, auxquels le pain, la viande et les remèdes seront portés à la porte, aux dépens de la ville pour ceux qui n'ont pas le moyen d'y pourvoir.",
        "Article III. Les corps des personnes décédées seront enlevés dans les vingt-quatre heures par les corbeaux et portés aux fosses ouvertes hors de la ville, où ils seront couverts de chaux vive et de terre. Il est défendu de les exposer dans les églises, de leur faire aucun convoi ni de sonner les cloches pour leur enterrement, les prières pouvant être faites dans les paroisses sans assemblée. Les hardes, linges et matelas ayant servi aux malades seront brûlés en présence du commissaire, sans qu'il soit permis à qui que ce soit d'en rien retenir, vendre ou acheter, à peine de la vie.",
        "Article IV. Nul ne pourra sortir de la ville, ni aucune marchandise en être transportée, sans un billet de santé signé de nous ou du bureau de la Santé, lequel contiendra le nom, l'âge, la qualité et la demeure du porteur, et le lieu où il entend se rendre. Les gardes placés aux portes et sur les chemins arrêteront tous ceux qui se présenteront sans ledit billet. Les billets ne seront délivrés qu'aux personnes qui auront fait quarantaine dans une maison saine, et il est défendu, à peine de la vie, d'en contrefaire ou d'en prêter.",
      ],
    },
    {
      paragraphs: [
        "Article V. Pour éviter les assemblées qui peuvent répandre la contagion, les écoles, les cabarets et les jeux publics seront fermés jusqu'à nouvel ordre ; les marchés ne se tiendront qu'aux lieux qui seront désignés, où les vendeurs seront séparés des acheteurs par une barrière, et la monnaie sera reçue dans un vase rempli de vinaigre. Les boulangers seront tenus de cuire chaque jour la quantité de pain accoutumée, et de le vendre au prix qui sera fixé par nous, sans qu'il leur soit permis de l'augmenter ni d'en refuser à personne.",
        "Article VI. Il sera allumé chaque soir, dans les rues et places de la ville, des feux de bois odoriférants, de romarin, de genièvre et d'autres herbes aromatiques, pour purifier l'air. Les chiens et les chats errants seront tués et jetés aux fosses, et les habitants tiendront leurs maisons propres, jetteront de l'eau dans les rues devant leurs portes et n'y laisseront aucunes immondices. Les commissaires des quartiers feront chaque jour la visite de leur district et nous en rendront compte.",
        "Enjoignons aux commissaires, capitaines de quartier et gardes de tenir la main à l'exécution de la présente ordonnance, qui sera lue, publiée et affichée à son de trompe dans tous les carrefours de la ville et de son terroir, afin que personne n'en prétende cause d'ignorance, et sera exécutée nonobstant toutes oppositions ou appellations quelconques, pour lesquelles ne sera différé. Mandons aux Intendants de la Santé de prêter main-forte auxdits commissaires, et à tous habitants de leur obéir en ce qui regarde le présent règlement. Fait à Marseille, en l'Hôtel de Ville, le troisième août mil sept cent vingt.",
      ],
      lines: [
        "Note : texte d'exemple rédigé pour le projet Similar Sources dans le style des ordonnances",
        "de police de l'époque ; il ne reproduit aucun document d'archives.",
      ],
    },
  ],
};

// ---------------------------------------------------------------------------------------------
// 12. Primary source: Lancashire cotton famine relief report, 1862 (English)

const lancashireRelief: ExampleSource = {
  file: 'archives/lancashire-relief-1862.pdf',
  language: 'en',
  title: 'Report of the Relief Committee of the Township of Oakenbrook, Lancashire, for the Quarter ending 31st December, 1862',
  author: 'Oakenbrook Relief Committee',
  header: 'Oakenbrook Relief Committee — Quarterly Report, 1862',
  numbering: { style: 'arabic', start: 1 },
  pageLabels: false,
  info: { title: true, author: true, created: '2021-11-03T15:30:00Z' },
  citekey: 'oakenbrook1862report',
  primary: true,
  typeset: false,
  pages: [
    {
      heading: 'Report of the Relief Committee of the Township of Oakenbrook, Lancashire, for the Quarter ending 31st December, 1862',
      paragraphs: [
        "Presented to the Subscribers at a Public Meeting held in the Mechanics' Institute, January 1863.",
        'The Committee, in presenting this their second Quarterly Report, regret that they are unable to announce any improvement in the condition of the township. The stoppage of the supply of American cotton, consequent upon the unhappy war in the United States and the blockade of the Southern ports, has now continued for more than a year, and the stocks of raw material which sustained the mills through the early months of the distress are entirely exhausted. Of the twenty-three cotton mills in the township, fourteen are at present wholly stopped, and the remainder are working short time, for the most part two or three days in the week.',
        'At the close of the quarter, the number of operatives wholly out of employment was 4,312, and of those working short time 2,087. Including their families, the Committee estimate that not fewer than 11,500 persons, being more than one half of the population of the township, are at this moment dependent in whole or in part upon charitable relief or upon the rates. Such a state of things has not been known in Oakenbrook within the memory of its oldest inhabitants, and the Committee believe it to be without parallel in the history of the manufacturing districts.',
      ],
    },
    {
      heading: 'Relief Afforded',
      paragraphs: [
        'The Committee have continued to afford relief chiefly by tickets upon approved shopkeepers for bread, meal, potatoes and other necessaries, and in a smaller measure by money. The scale adopted in September has been maintained, namely, a sum not exceeding two shillings per head per week for each member of a family, inclusive of any earnings, the relief being reduced in proportion where earnings are received. The Committee are aware that this allowance affords a bare subsistence only, but they have judged it their duty to husband the funds entrusted to them, the end of the distress being not yet in sight.',
        'During the quarter, 2,640 families were relieved, and the total expenditure upon relief in food and money amounted to £9,874 6s. 4d. In addition, 1,180 blankets, 2,350 garments and 410 pairs of clogs have been distributed, the greater part of them the gift of ladies in London, Liverpool and other towns, to whom the Committee desire to express their warm thanks. Coal has been supplied to the most necessitous families during the severe weather of December, at a cost of £612.',
        'The Committee have maintained a careful distinction between their own relief and that administered by the Board of Guardians under the Poor Law. Many of the operatives, who have never before been obliged to ask for assistance, feel a strong repugnance to applying to the Guardians, and the Committee have been anxious that respectable working men and women should not be driven to the workhouse or to the labour yard through no fault of their own. The two bodies have nevertheless communicated regularly, in order that no family should be relieved twice over.',
      ],
    },
    {
      heading: 'Schools and Employment',
      paragraphs: [
        'It has been the settled policy of the Committee that relief should, wherever possible, be given in return for attendance at school or at some useful employment, not as a test of destitution but as a means of preserving habits of industry and improving the mind. Sewing schools for young women and girls have been opened in four rooms lent for the purpose, with an average daily attendance of 940. The scholars are instructed in plain sewing, the cutting out and making of garments, and in reading and writing, and they receive a small weekly allowance in addition to the relief of their families.',
        "For the young men, schools have been established in the Mechanics' Institute and in two Sunday school rooms, where reading, writing, arithmetic and, for the more advanced, drawing and the elements of mechanics are taught. The average attendance has been 620. The Committee have observed with much satisfaction the eagerness with which many who had received little schooling in childhood have applied themselves to learning, and several have been enabled by this means to obtain situations elsewhere. Teachers have been found among the unemployed themselves, several of the overlookers proving excellent instructors.",
        'Some two hundred men have been employed in breaking stone, in levelling the ground of the new cemetery and in the improvement of roads, under the direction of the Surveyor. The Committee would gladly see this form of employment extended, and they have learned with satisfaction that Parliament is likely to be invited to sanction loans to local authorities for the execution of public works in the distressed districts, which would furnish honest labour at fair wages to many now dependent upon charity.',
      ],
    },
    {
      heading: 'Funds and Observations',
      paragraphs: [
        'The receipts of the quarter amounted to £11,206 2s. 9d., of which £3,940 was raised by local subscription, £5,500 was received by grant from the Central Executive Committee in Manchester, and £1,766 2s. 9d. from the Mansion House Fund and from private donors at a distance. The balance in hand at the close of the quarter was £1,142. The Committee must earnestly represent that, unless the subscriptions of the wealthier inhabitants are continued and increased, it will be impossible to maintain even the present scale of relief through the coming months.',
        'The Committee cannot close this Report without bearing testimony to the admirable conduct of the operatives throughout this long trial. With very few exceptions, they have borne privation with a patience and a self-respect that do them the highest honour. There has been no disturbance of the public peace, and many who might have claimed relief have struggled on without it as long as their savings and their credit would allow. The Committee have heard, moreover, and believe it to be true, that numbers of the operatives, though suffering directly from the want of cotton, regard the cause of the Northern States with sympathy, as a struggle against slavery.',
        'The Committee look forward with anxiety to the arrival of increased supplies from India and Egypt, though the Surat cotton hitherto received is so short in the staple and so dirty as to be worked only with great difficulty and at reduced earnings to the operatives. They would respectfully urge upon the public the necessity of continued liberality until the trade of the district shall be restored. By order of the Committee, the Chairman and Honorary Secretaries. The Committee meet every Tuesday and Friday at the Town Hall, where applications are received.',
      ],
      lines: [
        "Editor's note: an example document written for the Similar Sources project in the style of the",
        'relief reports of the period; the township of Oakenbrook and its committee are fictional.',
      ],
    },
  ],
};

/** The twelve readable sources of the example library, in a stable order. */
export const EXAMPLE_SOURCES: readonly ExampleSource[] = [
  grainTrade,
  annales,
  maximum,
  railwayTime,
  zhengHe,
  hanse,
  commune,
  exodeRural,
  printing,
  littleIceAge,
  pesteMarseille,
  lancashireRelief,
];

// ---------------------------------------------------------------------------------------------
// The damaged file: written in full, then cut to 40% by the generator.

export const DAMAGED_FILE = 'broken/damaged.pdf';
export const DAMAGED_KEEP_FRACTION = 0.4;
export const DAMAGED_SOURCE: ExampleSource = {
  file: DAMAGED_FILE,
  language: 'en',
  title: 'The Silk Weavers of Lyon and the Revolt of 1831',
  author: 'Robert Faulconer',
  header: 'Working Papers in Urban History 3 (2014)',
  numbering: { style: 'arabic', start: 1 },
  pageLabels: false,
  info: { title: true, author: true, created: '2014-03-03T09:00:00Z' },
  typeset: true,
  pages: [
    {
      heading: 'The Silk Weavers of Lyon and the Revolt of 1831',
      paragraphs: [
        'Robert Faulconer',
        'In the early nineteenth century, Lyon was the capital of European silk. Its looms were not gathered in factories but scattered through thousands of small workshops on the slopes of the Croix-Rousse, where master weavers worked with their families and a few journeymen on orders placed by merchant manufacturers. The weavers owned their looms but not the silk, and the price paid for each piece of cloth was the object of constant dispute between the two groups.',
        'In the autumn of 1831, after the prefect had brokered an agreed tariff of piece rates, many merchants refused to honour it. The weavers came down from their hill in November, took control of the city for several days and withdrew only when the army returned in force. The episode became a reference point for the emerging labour movement across Europe.',
      ],
    },
    {
      heading: 'Masters, journeymen and merchants',
      paragraphs: [
        'The organisation of the silk industry placed the master weaver in an ambiguous position. He was at once an employer of journeymen and apprentices and a dependent of the merchant who supplied the raw silk and bought the finished cloth. When prices fell, the merchant cut the rates, and the master passed the loss on to his workers or absorbed it himself. Solidarity between masters and journeymen was therefore fragile, but the dispute over the tariff united them against the merchants.',
      ],
    },
  ],
};
