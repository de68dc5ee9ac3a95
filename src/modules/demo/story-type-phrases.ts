// Each demo event type's own words for the article texts (story-grammar.ts notation): how a lead
// says what happened (every clause names every entity of the event, so every story of an event
// carries its names), facts and reactions, headlines, and who is quoted saying what. Slots are
// the type's role code names; {speaker_name} and friends are filled per event (demo-stories.ts).
// The many small choices are what keeps two stories written apart from sharing whole phrases:
// stories of one event draw the same templates now and then, rarely the same words in them.

export type StoryCategory = 'BUSINESS' | 'HAZARD' | 'PUBLIC';

export interface StorySpeaker {
  /** Who speaks: a role's name ("{person}"), or, when absent, a name made for the event. */
  name?: string;
  /** What they are, after their name ("a spokesperson for {acquirer}"). */
  title: string;
  /** What they might say (one drawn per event, then the same words in every story that quotes it): no final stop. */
  quotes: string[];
}

export interface TypePhrases {
  category: StoryCategory;
  /** The role naming where it happened, if any. */
  place?: string;
  /** The event as a noun phrase, as a choice ("[the deal|the takeover]"). */
  noun: string;
  /** What the event is part of, as a choice. */
  topic: string;
  /** Who says things about it (before "said"), as a choice. */
  sayer: string;
  /** What an account of it is (after "according to"), as a choice. */
  report: string;
  /** What happened, as a clause without a final stop. */
  clauses: string[];
  facts: string[];
  reactions: string[];
  headlines: string[];
  speakers: StorySpeaker[];
}

export const TYPE_PHRASES: Record<string, TypePhrases> = {
  acquisition: {
    category: 'BUSINESS',
    noun: '[the deal|the acquisition|the takeover|the purchase|the transaction]',
    topic: '[dealmaking|consolidation|takeover activity|the mergers market|corporate deals|sector consolidation]',
    sayer: '[the companies|the two companies|{acquirer}|people familiar with the matter|a person close to the talks]',
    report: '[a statement from {acquirer}|a regulatory filing|a joint statement|a filing with regulators]',
    clauses: [
      '{acquirer} [has agreed to|agreed to|said it would] [buy|acquire|take over] {target} [for|in a deal worth|in a transaction valued at] {price}',
      '{target} [will be|is to be|is set to be] [acquired|bought|taken over] by {acquirer} [for|in a deal valued at|at a price of] {price}',
      '{acquirer} [struck|reached|signed] [a deal|an agreement] [to buy|to acquire] {target}, [valuing it at|paying] {price}',
      '[in a deal worth|for a price of|for] {price}, {acquirer} [will take|is taking|is set to take] control of {target}',
      '{acquirer} [announced|unveiled|disclosed] [plans|an agreement|a deal] to [buy|absorb|acquire] {target} for {price}',
    ],
    facts: [
      '[The price|The offer|The sum] of {price} [values|puts a value on] {target} [well above|above|close to] [its|what analysts had put as its|most estimates of its] [recent|last reported] [market value|valuation].',
      'The [agreement|deal|offer] was [announced|made public|disclosed] on {announced_on}[| and is subject to regulatory approval| and still needs the approval of regulators].',
      '{acquirer} [said it expects|said it hopes|told investors it expects] [the transaction|the deal] to [close|be completed|be finished] [within|in] [the next|about] [six|nine|twelve|eighteen] months.',
      '[Shareholders of|Investors in|Owners of] {target} [will receive|are set to receive|would get] [cash|cash and stock|stock in {acquirer}|a cash-and-share payment] under the [terms|agreement|offer].',
      '[Neither company|Neither side|None of the parties] [disclosed|gave|offered] [further|more|detailed] [terms|details|figures] beyond the {price} [price|headline figure|valuation].',
      '{target} [will keep|is to keep|would retain] its [name|brand|management team] [for now|after the deal|at least for a while], {acquirer} [said|added|indicated].',
      '[Advisers|Banks] [working on|advising on|involved in] [the deal|the transaction] [include|were said to include] [several|two|a handful of] [large|international|well-known] [investment banks|advisory firms|law firms].',
      '[Both boards|The two boards|Directors at both firms|Each board] [have approved|backed|signed off on|endorsed] [the deal|the terms|the agreement][|, {acquirer} said|, the statement said].',
      '{acquirer} [plans to|intends to|said it would] [fund|pay for|finance] [the purchase|the acquisition] [with cash on hand|with new debt|with borrowing and cash|from its reserves].',
      '[Under|According to|By] the [terms|plan|proposal], {acquirer} [would|will|is to] [fold|merge|integrate|combine] {target} [into|with] its [existing|own|largest] [division|unit|operations|business].',
      '[Lawyers|Bankers|Advisers] [for|working for|acting for] {target} [had|have] [pushed|argued|held out] for [a higher|a better|a richer] [price|offer|premium] [during|in|throughout] [the talks|negotiations|weeks of talks].',
      '[Talks|Discussions|Negotiations] between {acquirer} and {target} [began|started|opened] [in the spring|late last year|several months ago|over the summer], [according to|said] [two people|a person|people] [with knowledge of them|briefed on them|close to the deal].',
      '{target} [had|has] [attracted|drawn|received] [interest|approaches|interest from buyers] [before|in the past|more than once], [but|yet] [no deal|no agreement|nothing] [came of it|materialised|was reached].',
    ],
    reactions: [
      '[Shares of|Stock in] {target} [rose|jumped|climbed|gained] [sharply|strongly|in early trading|after the announcement].',
      '[Analysts|Market watchers|Investors] [said|noted] [the deal|the purchase|the takeover] [would|could|should] [give|hand] {acquirer} [a larger share of|a stronger position in|more weight in] [its market|the sector|its core business].',
      '[Employees|Staff|Workers] at {target} [were told|learned|heard] of [the deal|the sale|the agreement] [in a memo|at a meeting|on the same day].',
      '[Competition authorities|Regulators|Antitrust officials] [are expected to|will likely|could] [review|examine|look closely at] [the deal|the takeover] [before it closes|in the coming months|given its size].',
      '[Shares in|Stock of] {acquirer} [slipped|were little changed|edged lower|rose slightly] [as investors weighed|while the market digested|after traders studied] the [cost|price|terms].',
      '[Rival bidders|Other suitors|Competing buyers] [had|were said to have] [circled|looked at|approached] {target} [earlier in the year|in recent months|before talks began].',
      '[Unions|Worker representatives|Staff groups] at {target} [asked|sought|demanded] [assurances|guarantees|promises] [on|about|over] [jobs|pay|pensions|the future of sites].',
      '[Some|A few|Several] [shareholders|investors|fund managers] in {acquirer} [questioned|criticised|queried] [the price|the premium|the cost] [paid|offered|agreed] for {target}.',
    ],
    headlines: [
      '{acquirer} to [buy|acquire] {target} for {price}',
      '{acquirer} [agrees|strikes] {price} deal for {target}',
      '{target} [to be sold|agrees to sale] to {acquirer} [for|in] {price} [deal|takeover]',
    ],
    speakers: [
      {
        title: '[a spokesperson for|a spokeswoman for|a spokesman for] {acquirer}',
        quotes: [
          '[This|The] [combination|deal|agreement] [brings together|unites|joins] two [strong|complementary|well-run] [businesses|teams|companies] and [creates|builds|opens up] [real|lasting|new] value for [our|both sets of] [shareholders|customers]',
          'We [have|had] [admired|followed|watched] {target} for [years|a long time] and are [delighted|pleased|proud] to [welcome|bring] its [people|team|staff] [into|to] {acquirer}',
        ],
      },
      {
        title: 'the [chief executive|chair|finance director] of {target}',
        quotes: [
          '[The price reflects|This price reflects|We believe the price reflects] the [quality|strength|value] of [our|the] [business|brands|people] and [gives|offers] [our|the] [shareholders|owners] [a fair return|a good outcome|certainty]',
          '[Joining|Becoming part of] {acquirer} [gives|will give] [us|our teams] the [scale|resources|reach] to [grow|compete|invest] [in ways|as] we could not [alone|on our own]',
        ],
      },
    ],
  },

  earthquake: {
    category: 'HAZARD',
    place: 'location',
    noun: '[the quake|the earthquake|the tremor|the temblor]',
    topic: '[seismic risk|quake safety|earthquake risk|seismic hazards|tremors]',
    sayer: '[the national seismological agency|seismologists|geologists|local authorities|emergency officials]',
    report: '[the national seismological agency|monitoring stations|preliminary data from seismologists|the national geological survey]',
    clauses: [
      'a magnitude {magnitude} earthquake [struck|hit|shook|rattled] {location}',
      'an earthquake of magnitude {magnitude} [struck|hit|jolted] [parts of|areas of|a region of] {location}',
      '{location} was [struck|hit|shaken|rocked] by [an earthquake|a quake|a strong tremor] [measuring|of magnitude|with a magnitude of] {magnitude}',
      '[a powerful|a strong|a sharp] [earthquake|quake|tremor] [of|measuring] magnitude {magnitude} [shook|struck|hit] {location}',
    ],
    facts: [
      '[The quake|The tremor|It] [struck|was centred|occurred] at a depth of {depth}[|, according to preliminary data|, seismologists said].',
      '[Its depth|The depth of the quake|How deep it struck] [was put at|was measured at|was estimated at] {depth}[|, which [limits|can limit|tends to limit] [shaking|damage|what people feel] [at the surface|above ground|in towns]].',
      '[Several|A series of|Dozens of] [aftershocks|smaller tremors] [followed|were recorded|were felt] [in the hours after|after|within hours of] the main [shock|quake].',
      '[Residents|People|Families] [ran|rushed|fled] into the streets [as buildings swayed|when the shaking began|in several towns].',
      '[Authorities|Officials|Emergency services] [were still assessing|had yet to assess|said they were assessing] [the damage|the extent of the damage|reports of damage] [late in the day|by nightfall|hours later].',
      '[The shaking|The tremor|It] [was felt|could be felt|was reported] [as far as|in cities up to|across an area of] [200|300|several hundred] kilometres [away|from the epicentre|from its centre].',
      'The [epicentre|centre of the quake] was [located|placed|put] [near|close to|in] a [sparsely populated|mountainous|coastal] area of {location}, [according to|based on] [the first readings|initial estimates|early data].',
      'The magnitude of {magnitude} [was later confirmed|was revised slightly|was confirmed] by [international monitoring agencies|other observatories|a second agency].',
      '[Seismographs|Monitoring stations|Sensors] [in|across|around] [neighbouring countries|the region|several countries] [also|] [registered|recorded|picked up] [the tremor|the quake|the shock].',
      '[Landslides|Rockfalls|Cracked roads] [blocked|cut off|closed] [some|several|a few] [mountain roads|routes|villages] [in|across] {location}, [officials|rescuers|local reports] [said|indicated].',
      '[No tsunami warning|No tsunami alert|No warning of a tsunami] was [issued|given|put out][|, officials said| by the authorities].',
      '[Residents|Witnesses|People] [described|recalled|spoke of] [furniture sliding|windows rattling|walls shaking|a loud rumble] [for|lasting] [several|about ten|nearly twenty|a few] seconds.',
    ],
    reactions: [
      '[Schools|Offices|Several schools] [were closed|were evacuated|suspended classes] [as a precaution|for inspections|for the rest of the day].',
      '[Rail services|Train services|Flights] [were halted|were suspended|were delayed] [briefly|for several hours|while engineers checked the lines].',
      '[Rescue teams|Emergency crews|Volunteers] [searched|checked|combed] [damaged buildings|collapsed homes|older neighbourhoods] [through the night|for survivors|for people trapped].',
      '[Neighbouring countries|Governments in the region|Aid agencies] [offered|sent|pledged] [help|assistance|rescue teams] [within hours|the same day|soon after].',
      '[Power|Electricity|Telephone service] [was cut|went out|was interrupted] [in parts of|across several districts of|in some towns in] {location} [for several hours|overnight|until repairs were made].',
      '[Engineers|Inspectors|Building experts] [began|started] [checking|inspecting|surveying] [bridges|dams|hospitals and schools] [for cracks|for damage|the same day].',
      '[Mobile networks|Phone lines|Internet services] [were|became] [overloaded|patchy|unreliable] [as|while] [people|residents|families] [called|tried to reach|checked on] [relatives|loved ones|neighbours].',
    ],
    headlines: ['Magnitude {magnitude} earthquake [strikes|hits|shakes] {location}', '[Strong|Powerful] [quake|earthquake] [hits|rattles] {location}'],
    speakers: [
      {
        title: "[the head of|a senior official at] {location}'s [seismological agency|civil protection agency|emergency management office]",
        quotes: [
          '[We are|Our teams are] [assessing|checking|inspecting] [the damage|every report of damage|buildings] and [ask|urge] [residents|people|everyone] to [stay calm|stay away from damaged buildings|follow official advice]',
          '[This|It] was [a strong|a significant|a serious] [quake|event], [and|but] our [buildings|emergency plans|response] [held up|worked|did what they were built to do]',
        ],
      },
    ],
  },

  heatwave: {
    category: 'HAZARD',
    place: 'region',
    noun: '[the heatwave|the heat|the hot spell|the extreme heat]',
    topic: '[extreme heat|heat illness|summer heat|hot weather|heat stress]',
    sayer: '[meteorologists|the national weather service|forecasters|health officials]',
    report: '[the national weather service|forecasters|official records|the meteorological office]',
    clauses: [
      '{region} recorded [temperatures of|a high of|a peak of] {peak_temperature} [during|in] a heatwave [lasting|of] {duration}',
      '[temperatures|the thermometer] [climbed to|reached|peaked at|hit] {peak_temperature} in {region} [during|amid] a [heatwave|hot spell|spell of extreme heat] [lasting|of] {duration}',
      'a heatwave [lasting|of] {duration} [pushed|drove|sent] temperatures in {region} [to|as high as|up to] {peak_temperature}',
      '{region} [sweltered|baked|suffered] through {duration} of [extreme heat|intense heat|scorching heat], with [temperatures|highs|readings] [reaching|peaking at|of] {peak_temperature}',
    ],
    facts: [
      'The [peak|highest reading|top temperature] of {peak_temperature} was [recorded|measured|registered] [in the afternoon|at several stations|at an inland station].',
      '[Night-time temperatures|Overnight lows|Temperatures at night] [stayed|remained] [unusually|exceptionally|well above normal and] [high|warm] [throughout|for much of] the [spell|period|heatwave].',
      '[Electricity demand|Power use|Demand for power] [hit|reached|set] [a record|a new high|record levels] as [households|offices|residents] [turned up|ran] [air conditioning|cooling|fans].',
      '[Hospitals|Emergency rooms|Clinics] [reported|saw|treated] [a rise in|more|dozens of] [cases of heat stroke|heat-related illnesses|patients with heat exhaustion].',
      'The heat [lasted|went on|held] for {duration}[|, forecasters said|, longer than most such spells].',
      'The reading of {peak_temperature} [came close to|fell just short of|matched] the [national|all-time|regional] record [set|recorded|measured] [in 2019|a few years ago|last decade].',
      '[Forecasters|Meteorologists] [blamed|attributed] the heat [on|to] a [stalled|persistent|slow-moving] [area of high pressure|heat dome|weather system] [over|above|across] {region}.',
      '[Some|Several|A number of] [cities|towns|districts] in {region} [recorded|logged|saw] [their hottest|record|unusually high] [days|nights|temperatures] [in|for] [decades|years|a generation].',
      '[Air quality|Ozone levels|Smog] [worsened|deteriorated|rose] [as|while] [the heat|the hot spell|temperatures] [persisted|lingered|continued].',
      '[Rivers|Reservoirs|Lakes] [fell|dropped|sank] to [low|unusually low|worrying] levels [during|over|through] the [spell|heatwave|hot weeks].',
      '[Shops|Stores|Retailers] [ran short of|sold out of|struggled to stock] [fans|air conditioners|bottled water] [as|while] [demand|sales] [soared|jumped|surged].',
    ],
    reactions: [
      '[Authorities|Local governments|Officials] [opened|set up] [cooling centres|public cooling rooms|shelters] [in several cities|in the worst-hit areas|for older people].',
      '[Farmers|Growers] [warned|said] [the heat|the spell] [would|could] [damage|hurt|cut] [crops|harvests|yields] [across|in] {region}.',
      '[Outdoor work|Construction work|School sports] was [restricted|limited|halted] [during|in] the [hottest|middle] hours of the day.',
      '[Water companies|Utilities|Local councils] [asked|urged|told] [customers|residents|households] to [save water|limit water use|avoid watering gardens].',
      '[Trains|Rail services|Some trains] [ran|were running] [slower|at reduced speed|with delays] [because|as] [tracks|rails] [expanded|buckled|overheated] in the heat.',
      '[Tourists|Visitors|Residents] [crowded|flocked to|packed] [beaches|lakes|parks and fountains] [to cool off|in search of shade|in the evenings].',
      '[Zoos|Farms|Animal shelters] [took|used] [special|extra|unusual] [measures|steps|precautions] to [keep|protect] [animals|livestock] [cool|safe|out of the sun].',
    ],
    headlines: ['{region} [hits|records] {peak_temperature} [in|amid] heatwave', 'Heatwave [grips|bakes|scorches] {region} for {duration}'],
    speakers: [
      {
        title: "[a senior forecaster at|the head of] {region}'s [weather service|meteorological office]",
        quotes: [
          '[Temperatures like these|Readings like these|Heat like this] [were|used to be] [rare|exceptional|almost unheard of] here [only|just] [a generation ago|twenty years ago|a few decades ago]',
          'We [expect|are expecting] [the heat|these temperatures|this pattern] to [return|come back|recur] [more often|more frequently|every summer] [in the years ahead|from now on]',
        ],
      },
      {
        title: '[a spokesperson for|a senior official at] the health ministry of {region}',
        quotes: [
          '[People should|Everyone should|We urge people to] [drink plenty of water|stay indoors in the afternoon|check on elderly neighbours] and [avoid|limit] [strenuous activity|outdoor work|long exposure to the sun]',
        ],
      },
    ],
  },

  cargo_seizure: {
    category: 'PUBLIC',
    place: 'origin',
    noun: '[the seizure|the shipment|the cargo|the haul]',
    topic: '[smuggling|customs enforcement|illegal trade|port security|contraband]',
    sayer: '[customs officials|investigators|the authorities|prosecutors|{authority}]',
    report: '[a statement from {authority}|customs officials|investigators|court documents]',
    clauses: [
      '{authority} [seized|impounded|confiscated] {cargo_weight} of [cargo|goods|freight] [shipped|sent] from {origin}',
      '{cargo_weight} of [cargo|goods] [shipped|sent] from {origin} [was|has been] [seized|impounded|confiscated] by {authority}',
      '[officers|inspectors|agents] from {authority} [seized|intercepted|stopped] a [shipment|consignment|cargo] of {cargo_weight} [that had arrived|shipped|sent] from {origin}',
      '{authority} [said it had|has] [intercepted|seized|halted] {cargo_weight} of [freight|cargo|goods] [from|originating in|loaded in] {origin}',
    ],
    facts: [
      'The [shipment|consignment|cargo] [weighed|totalled|amounted to] {cargo_weight} [in all|in total|according to the manifest].',
      '[Inspectors|Officers|Agents] [found|discovered|noticed] [irregularities|discrepancies|problems] in the [paperwork|documents|declared contents] [during a routine check|at the port|after a tip-off].',
      '[The containers|The goods|The cargo] had been [declared|listed|registered] as [machine parts|household goods|building materials|textiles].',
      '[No arrests|Two arrests|Several arrests] [were|have been] [announced|made|reported] [so far|in connection with the case|since].',
      'The [goods|containers|crates] [were|had been] [loaded|shipped|sent] in {origin} [weeks|several weeks|about a month] [earlier|before].',
      '[Officers|Inspectors|Agents] [used|relied on|brought in] [scanners|sniffer dogs|X-ray equipment] to [examine|check|search] the [containers|crates|cargo].',
      'The [ship|vessel|freighter] [carrying|that brought|with] the [cargo|goods|containers] had [called|stopped|docked] at [two|three|several] [ports|other ports|harbours] [on its way|before arriving|along the route].',
      '[Dogs|Scanners|Inspectors] [flagged|spotted|singled out] the [containers|shipment|load] [on arrival|at unloading|during checks] [because of|over|for] [unusual|irregular|suspicious] [weights|markings|routing].',
      '[Part of|Some of|Most of] the [cargo|goods|load] [was|had been] [hidden|concealed|packed] [behind|inside|among] [legitimate|ordinary|declared] [goods|crates|freight].',
      '[Investigators|Officials|Prosecutors] [did not|declined to|would not] [say|reveal|disclose] [what|exactly what] the [containers|crates|shipment] [held|contained|carried].',
      '[The port|The terminal|The docks] [handles|sees|receives] [thousands of|hundreds of|many] [containers|shipments|vessels] [each day|every week|a month].',
    ],
    reactions: [
      '[The case|The seizure|The matter] [has been|was] [passed to|referred to|handed to] [prosecutors|investigators|a special unit] [for further inquiries|for investigation|to examine].',
      '[Authorities in|Officials in] {origin} [did not|declined to] [comment|respond|say] [on the seizure|on the case|whether they had been informed].',
      '[Shipping companies|Freight forwarders|Port operators] [said|warned] that [checks|inspections] [could|would] [delay|slow] [other|further] [deliveries|shipments] [in the coming days|for some time].',
      '[The shipping line|The carrier|The company that owns the vessel] [said|told reporters] it [was cooperating|would cooperate|had cooperated] [fully|closely] with [investigators|the authorities|{authority}].',
      '[Trade groups|Importers|Business groups] [called for|asked for|urged] [faster|clearer|better coordinated] [checks|procedures|inspections] [at the border|in ports|for legitimate cargo].',
      '[Lawmakers|Politicians|Local officials] [praised|welcomed|hailed] the [seizure|operation|find] [and|while] [calling|asking|pressing] for [more|further|better] [funding|resources|staff] for [customs|border checks|inspectors].',
    ],
    headlines: [
      '{authority} [seizes|impounds] {cargo_weight} of cargo from {origin}',
      '[Customs|Authorities] [seize|stop] {cargo_weight} [shipment|cargo] from {origin}',
    ],
    speakers: [
      {
        title: '[a spokesperson for|the head of enforcement at|a senior investigator with] {authority}',
        quotes: [
          '[This|The] [seizure|operation|interception] [shows|proves|demonstrates] that [our|the] [checks|controls|inspections] [work|are working|are effective] and that [smugglers|traffickers|those responsible] [will be|are being] [caught|found|held to account]',
          'We [will|are going to] [follow|trace] [this|the] [shipment|cargo] [back to|to] [its source|those who sent it|whoever organised it]',
        ],
      },
    ],
  },

  wildfire: {
    category: 'HAZARD',
    place: 'location',
    noun: '[the fire|the wildfire|the blaze]',
    topic: '[wildfire risk|drought|fire seasons|forest fires|dry summers]',
    sayer: '[firefighters|fire officials|the regional fire service|local authorities]',
    report: '[the regional fire service|satellite data|fire officials|local authorities]',
    clauses: [
      'a wildfire [burned|scorched|destroyed] {burned_area} [near|outside|around] {location}',
      '[a fast-moving|a large|a wind-driven] [wildfire|blaze|fire] [tore through|swept across|consumed] {burned_area} [near|on the outskirts of|close to] {location}',
      '[firefighters|fire crews] [battled|fought|worked to contain] a [wildfire|blaze] that [burned|scorched|blackened] {burned_area} [near|around|outside] {location}',
      '{burned_area} of [land|forest|scrubland|farmland] [burned|went up in flames|was destroyed] [in a wildfire|as a wildfire spread] [near|outside] {location}',
    ],
    facts: [
      '[The fire|The blaze|It] had [burned|covered|scorched] {burned_area} by [the evening|late in the day|nightfall], [officials|firefighters] [said|estimated].',
      '[Strong winds|Gusty winds|Dry winds] and [low humidity|dry vegetation|high temperatures] [fuelled|drove|spread] the [flames|fire] [quickly|rapidly|across ridges].',
      '[Hundreds of|Dozens of|Several hundred] [residents|households|families] [were|had been] [evacuated|ordered to leave|moved to shelters] [as a precaution|overnight|as the flames approached].',
      '[Water-dropping aircraft|Helicopters|Planes] [joined|supported|backed up] [ground crews|the firefighters|teams on the ground] [at first light|through the day|from the morning].',
      '[The cause of the fire|What started the blaze|The origin of the fire] [was not yet known|remained unclear|was under investigation].',
      '[More than|About|Nearly] [200|400|600|1,000] firefighters [were|had been] [deployed|sent|working] [on the fire lines|to the area|against the blaze] [by late afternoon|at the height of the fire|on {day}].',
      '[Containment|Progress] [was|remained] [limited|slow|partial] by [the evening|nightfall|late {day}], [fire officials|crews|the fire service] [said|reported].',
      '[Evacuation orders|Warnings|Alerts] [covered|extended to|were issued for] [several|a number of|dozens of] [villages|neighbourhoods|communities] [near|around|outside] {location}.',
      '[Embers|Sparks|Burning debris] [carried|blown|driven] by the wind [started|set off|sparked] [new|smaller|several] [fires|blazes|spot fires] [ahead of|beyond|past] the [main front|fire line|main blaze].',
      '[Firefighters|Crews|Teams] [cut|dug|cleared] [firebreaks|containment lines|breaks] [to protect|to shield|around] [homes|farms|the town] [overnight|through the night|before dawn].',
      '[Power lines|Electricity supplies|Phone masts] [were|had been] [damaged|cut|switched off] [as a precaution|by the flames|in the area], [leaving|cutting off] [homes|households|villages] [without power|in the dark|offline].',
    ],
    reactions: [
      '[Roads|Several roads|A main road] [near|around|into] {location} [were|remained] [closed|shut|blocked] [to traffic|as a precaution|for hours].',
      '[Smoke|Thick smoke|Haze] [drifted|spread|hung] over {location}, [prompting|leading to] [health warnings|advice to stay indoors|air quality alerts].',
      '[Residents|Evacuees|Families] [waited|gathered|sheltered] in [schools|sports halls|community centres] [for news of their homes|through the night|as crews fought the flames].',
      '[Several|A number of|At least a dozen] [homes|farm buildings|barns] [were|had been] [damaged|destroyed|lost] [on the edge of|around|near] {location}, [officials|residents] [said|reported].',
      '[Schools|Some schools|Several schools] [in and around|near] {location} [were closed|cancelled classes|shut their doors] [as a precaution|because of the smoke|for the day].',
      '[Farmers|Ranchers|Landowners] [moved|herded|evacuated] [livestock|cattle|horses] [away from|out of|clear of] the [path|reach|way] of the [flames|fire|blaze].',
    ],
    headlines: ['Wildfire [burns|scorches] {burned_area} near {location}', '[Fire crews|Firefighters] battle [blaze|wildfire] near {location}'],
    speakers: [
      {
        title: '[the fire chief of|a fire service spokesperson in|the mayor of] {location}',
        quotes: [
          '[Our crews|Our firefighters|The crews] [have been working|worked] [through the night|around the clock|without rest] to [protect homes|keep people safe|stop the fire reaching the town]',
          '[The conditions|The winds|The weather] [made|have made] this [fire|blaze] [very hard|extremely difficult|unusually hard] to [control|contain|fight]',
        ],
      },
    ],
  },

  oil_spill: {
    category: 'HAZARD',
    place: 'location',
    noun: '[the spill|the leak|the oil spill]',
    topic: '[spill risk|pollution at sea|offshore drilling|marine pollution|tanker safety]',
    sayer: '[the company|{company}|environmental officials|the coast guard]',
    report: '[the coast guard|a statement from {company}|environmental officials]',
    clauses: [
      '{company} [spilled|leaked|released] {volume} of oil off {location}',
      '[about|an estimated|some] {volume} of oil [leaked|spilled|escaped] from [a facility|a tanker|a pipeline] [operated by|belonging to|run by] {company} off {location}',
      '{company} [said|confirmed|admitted] that {volume} of oil had [leaked|spilled|escaped] [into the sea|into coastal waters] off {location}',
    ],
    facts: [
      'The [leak|spill] of {volume} was [detected|spotted|reported] [by a patrol|by fishermen|on satellite images] [early in the morning|overnight|the day before].',
      '[Clean-up crews|Response teams|Workers] [deployed|laid|set up] [booms|barriers|skimmers] to [contain|stop|limit] the [slick|oil|spill].',
      '[The slick|The oil] [stretched|spread|extended] [for several kilometres|along the coast|toward nearby beaches].',
      '[Fishing|Fishing boats|Fishermen] [were|have been] [banned|barred|kept] from [the area|the waters nearby|the zone] [until further notice|for now|while tests are carried out].',
      'The [cause|source] of the [leak|spill] [was being|was still being] [investigated|established|determined], [{company}|officials] [said|added].',
      '{company} [said|reported] that the [leak|flow] [had been|was] [stopped|stemmed|brought under control] [within hours|by the afternoon|late on {day}].',
      '[Satellite images|Aerial photographs|Images taken from the air] [showed|revealed] a [sheen|slick|dark band] [spreading|drifting|moving] [toward|along|near] the coast of {location}.',
      '[Divers|Engineers|Technicians] [inspected|examined|checked] the [pipeline|tanker|facility] [for|to find] [the source|the breach|the damage] [overnight|through the night|on {day}].',
      '[Beaches|Stretches of coastline|Coves] [near|along|around] the [site|spill|slick] [were|have been] [closed|shut|cordoned off] [to the public|to swimmers|for now].',
      '[Birds|Seals|Fish] [coated|covered|smeared] [in|with] oil [were|had been] [found|spotted|reported] [along|on] the [shore|beaches|coast].',
      '[The spill|The leak|The incident] [could|may|might] [cost|expose] {company} [to|in] [heavy|large|substantial] [fines|penalties|claims] [under|according to] [local|national|environmental] [law|rules|regulations].',
    ],
    reactions: [
      '[Environmental groups|Conservationists|Campaigners] [called for|demanded|urged] [an inquiry|a full investigation|tougher penalties] [into|over] [the spill|the incident].',
      "[Regulators|Authorities|The environment ministry] [said|announced] [they|it] would [investigate|examine|review] {company}'s [safety procedures|maintenance records|operations].",
      '[Volunteers|Residents|Wildlife groups] [began|started] [cleaning|rescuing] [oil-soaked birds|beaches|the shoreline] [within hours|the same day|at dawn].',
      '[Tourism operators|Hotel owners|Local businesses] [along the coast|in nearby towns] [feared|warned of|worried about] [cancellations|lost bookings|a difficult season].',
      '[Fishermen|Fishing crews|Local fishermen] [said|complained|warned] that the [spill|ban] [threatened|would hurt|could ruin] [their income|the season|their catch].',
      '[Scientists|Marine biologists|Researchers] [warned|said|cautioned] that [the damage|the effects|the harm] to [wildlife|the ecosystem|fisheries] [could|might|may] [last|linger|persist] for [years|months|seasons].',
    ],
    headlines: ['{company} [spills|leaks] {volume} of oil off {location}', 'Oil spill off {location} [blamed on|traced to] {company}'],
    speakers: [
      {
        title: '[a spokesperson for|the head of operations at] {company}',
        quotes: [
          'We [take|are taking] [full responsibility|this very seriously] and [are doing|will do] [everything we can|all we can|what is needed] to [clean up|contain|limit] [the spill|the damage|the oil]',
        ],
      },
      {
        title: '[an environment official in|a coast guard commander in] {location}',
        quotes: [
          'Our [priority|first concern] [now|today] is [the coastline|the wildlife|the people who live along the coast], and [we will|we are going to] [find out|establish] [how|why] this [happened|was allowed to happen]',
        ],
      },
    ],
  },

  speed_record: {
    category: 'PUBLIC',
    noun: '[the record|the record run|the attempt|the new mark]',
    topic: '[speed records|record attempts|extreme engineering|motorsport]',
    sayer: '[organisers|the team|timing officials|record keepers]',
    report: '[official timing|the team|organisers|timing officials]',
    clauses: [
      '{person} set a speed record of {speed} in {vehicle}',
      '{person} [reached|hit|clocked] {speed} [in|aboard|at the controls of] {vehicle}[, a new record|, setting a record]',
      '[piloting|aboard|in] {vehicle}, {person} [set|established|broke] [a new|the] [speed record|record] [with|at] {speed}',
      '[a new|the] speed record of {speed} [was set|was established] by {person} [in|aboard] {vehicle}',
    ],
    facts: [
      'The [top speed|record speed|speed] of {speed} was [measured|recorded|timed] over [a measured mile|two runs|a set course].',
      '{person} had [trained|prepared|been preparing] for the [attempt|run] for [months|two years|several years].',
      '[The run|The attempt] [took place|was held] [on a dry lake bed|on a closed course|on a stretch of desert] [early in the morning|at dawn|in calm weather].',
      '[The team|Engineers|Mechanics] [spent|needed] [years|months] [building|developing|refining] [the vehicle|the machine].',
      'The [previous|old|earlier] [record|mark|best] had stood for [more than a decade|several years|almost twenty years] [before the run|until {day}].',
      '[Conditions|The weather|The track surface] [were|was] [nearly ideal|close to perfect|favourable] [for|during] the [attempt|run], [the team|organisers] [said|noted].',
      'The [machine|vehicle] [used|relied on|was fitted with] [a specially built|a custom|an experimental] [engine|drive system|power unit] [designed|developed|built] [for the attempt|by the team|over several years].',
      '[Timing|Officials|Judges] [used|relied on|checked] [laser|satellite|radar] [equipment|measurements|timing] to [confirm|verify|record] the [speed|run|figure].',
      '{person} [made|completed|finished] [two|a pair of|back-to-back] [runs|passes|attempts] [in opposite directions|within an hour|as the rules require].',
      '[Wind|The weather|Heat] had [delayed|postponed|held up] the [attempt|run] [for|by] [several days|a week|two days] [before|until] [conditions|the weather] [improved|settled|cleared].',
    ],
    reactions: [
      '[Spectators|Supporters|Crew members] [cheered|applauded|celebrated] as [the result|the time|the speed] [was announced|appeared|was confirmed].',
      '[Record keepers|Officials] [are expected to|will] [confirm|ratify|verify] the [record|mark] [in the coming weeks|after reviewing the data|once checks are complete].',
      '[Rival teams|Other teams|Competitors] [said|signalled] they [would|planned to] [try|attempt] to [beat|break] the [mark|record] [next year|soon|within months].',
      '[Sponsors|Backers|Supporters of the project] [said|hoped] the [record|run] [would|could] [draw|attract|bring] [attention|interest|funding] [to the technology|to the team|for future attempts].',
      '[Engineers|The crew|Team members] [embraced|hugged|celebrated with] {person} [as|after] [the figures|the numbers|the result] [came in|were confirmed|appeared].',
    ],
    headlines: ['{person} sets {speed} speed record', '{person} [hits|reaches] {speed} [in|aboard] {vehicle}'],
    speakers: [
      {
        name: '{person}',
        title: '[who set the record|the record holder|who drove the run]',
        quotes: [
          'I [have|had] [dreamed of|worked for] this [moment|day|run] for [years|a long time|most of my life], and the [team|crew] [made|built] [every|each] [part|bit] of it',
          '[At that speed|Going that fast] [everything|the world] [goes quiet|slows down|becomes very simple], and you [just|only] [hold on|trust the machine|keep it straight]',
        ],
      },
    ],
  },

  bridge_opening: {
    category: 'PUBLIC',
    place: 'city',
    noun: '[the bridge|the new bridge|the crossing|the span]',
    topic: '[infrastructure spending|traffic congestion|public works|road building|transport planning]',
    sayer: "[city officials|the city council|engineers|the mayor's office]",
    report: '[city officials|the transport department|the city council]',
    clauses: [
      '{city} opened a {length} bridge on {opened_on}',
      'a {length} bridge [opened|was opened|opened to traffic] in {city} on {opened_on}',
      '{city} [inaugurated|unveiled|opened to traffic] [a new|its new] {length} [bridge|crossing] on {opened_on}',
      '[drivers|residents|commuters] in {city} [began|started] [using|crossing] a new {length} bridge [on|from] {opened_on}',
    ],
    facts: [
      'The [bridge|crossing|span] [stretches|runs|measures] {length} [across|over] [the river|the valley|the bay|the estuary].',
      '[Construction|Work on the project|Building work] [took|lasted|ran for] [three|four|five|six] years and [employed|involved] [hundreds of|more than a thousand|several hundred] workers.',
      '[The bridge|The new crossing] [has|carries] [four|six|two] [lanes|traffic lanes] [as well as|and] [a cycle path|a footpath|a rail line].',
      '[Officials|Planners] [expect|say] [the bridge|it] [will|would] [cut|shorten|reduce] [journey times|travel times|commutes] by [as much as|up to|roughly] [20|30|40] minutes.',
      'The [project|bridge|crossing] [cost|came in at] [about|roughly|more than] [300 million|half a billion|1.2 billion] in [public money|local currency|total], [officials|the city] [said|reported].',
      '[The design|Its design|The structure] [was chosen|was selected|came] [after|following|out of] [an international competition|a public consultation|years of planning].',
      '[Engineers|Designers|Builders] [tested|checked|load-tested] the [structure|bridge|deck] [with|using] [loaded lorries|heavy trucks|weights] [weeks|days|a month] before [the opening|it opened].',
      '[Tolls|A toll|Fees] [will|would] [apply|be charged|be collected] [on|for] [the crossing|the bridge|cars using it] [from next year|after a free period|during peak hours].',
      '[Ferry services|Boat services|The old ferry] [across|over] the [river|water|bay] [will|are to|could] [be reduced|end|be cut back] [now that|once|as] the [bridge|crossing] [is open|opens|carries traffic].',
    ],
    reactions: [
      '[Hundreds of|Crowds of|Thousands of] [residents|people|onlookers] [walked across|gathered on|turned out to see] the [bridge|span] [before it opened to traffic|at the ceremony|on the first day].',
      '[Local businesses|Shop owners|Traders] [said|hoped] [the bridge|the crossing] [would|could] [bring|draw] [more customers|new trade|more visitors] to {city}.',
      '[Critics|Some residents|Opposition councillors] [questioned|complained about|pointed to] the [cost|delays|overruns] of the [project|works|scheme].',
      '[Cyclists|Pedestrians|Walkers] [were among|were some of] the first to [cross|use|try out] the [bridge|span|crossing] [after the ribbon was cut|at the ceremony|on {opened_on}].',
      '[Traffic|Congestion|Queues] on [older|existing|nearby] [bridges|roads|routes] [is expected to|should|may] [ease|fall|drop] [noticeably|significantly|within weeks].',
      '[Residents|Commuters|Drivers] [posted|shared|uploaded] [photos|videos|pictures] of the [bridge|crossing|span] [online|on social media] [within hours|all day|that evening].',
    ],
    headlines: ['{city} opens {length} bridge', 'New {length} [bridge|crossing] opens in {city}'],
    speakers: [
      {
        title: "[the mayor of {city}|{city}'s head of transport|the chief engineer on the project]",
        quotes: [
          '[This bridge|This crossing|The bridge] [connects|brings together|links] [our|the] [communities|neighbourhoods|people] in a way [nothing|no road] [has|had] [before|done before]',
          '[We|Our city] [waited|has waited] [a long time|decades|years] for [this day|this bridge], and it [was|is] [worth|well worth] [the wait|every year of work]',
        ],
      },
    ],
  },

  appointment: {
    category: 'BUSINESS',
    noun: '[the appointment|the move|the hire|the change]',
    topic: '[leadership changes|corporate governance|succession planning|boardroom changes|executive pay]',
    sayer: '[the company|{organization}|the board]',
    report: '[a statement from {organization}|the board|a company announcement]',
    clauses: [
      '{organization} appointed {person} as {position}',
      '{organization} [named|has named|appointed] {person} [as its new|as|to the role of] {position}',
      '{person} [will become|is to become|has been named] {position} [of|at] {organization}',
      '{person} [was appointed|has been appointed|was named] {position} [of|at] {organization}',
    ],
    facts: [
      '{person} [will take up|takes up|is to take up] the [post|role|position] [next month|at the start of next quarter|with immediate effect].',
      '[Before|Prior to] [the appointment|joining|the move], {person} [spent|worked] [more than a decade|years|most of a career] [at a rival|in consulting|at a larger firm|in the public sector].',
      '[The|This] [appointment|decision] [follows|comes after] [a search|a review|a months-long search] [by the board|led by the board|for a successor].',
      "{organization} [did not|declined to] [disclose|say|give] [the terms of|details of] {person}'s [pay|contract|package].",
      'The [previous|outgoing|former] {position} [is stepping down|will leave|retires] [after|following] [eight|six|eleven] years [in the role|at {organization}].',
      '{person} [replaces|succeeds|takes over from] [a predecessor|an executive|a leader] who [held|had held|occupied] the [post|role] [for|over] [six|eight|nine] years.',
      '[The board|Directors|The company] [said|noted] {person} [had|has] [a strong record|long experience|a background] in [operations|finance|technology|turnarounds].',
      '{person} [will report|is to report|reports] [directly|] to the [board|chair|chief executive] [of|at] {organization}.',
      '[Recruiters|Headhunters|Search firms] [had|were said to have] [approached|contacted|sounded out] [several|a number of|other] [candidates|executives|insiders] [before|ahead of] the [choice|decision|appointment].',
      '{person} [is|becomes] the [first|second|youngest|first outside] {position} [in|at] {organization}[| in decades| in its history].',
    ],
    reactions: [
      '[Investors|Shareholders|Analysts] [welcomed|greeted|received] the [news|appointment|move] [cautiously|warmly|with relief].',
      '[Staff|Employees] [were told|learned] of the [change|appointment] [in an internal memo|at a meeting|earlier in the day].',
      '[Shares in|Stock of] {organization} [barely moved|edged higher|slipped] [on the news|after the announcement|in afternoon trading].',
      '[Former colleagues|Industry peers|People who have worked with {person}] [described {person} as|called {person}] [demanding but fair|a careful operator|an energetic manager].',
      '[The appointment|The change|The move] [comes|came] [as|while] {organization} [faces|is facing|deals with] [slowing growth|pressure from investors|a changing market].',
      '[Rivals|Competitors|Peers] [of|to] {organization} [have|had] [made|announced|seen] [similar|their own|other] [changes|appointments|moves] at the top [this year|recently|in recent months].',
    ],
    headlines: ['{organization} [appoints|names] {person} as {position}', '{person} to [lead|join] {organization} as {position}'],
    speakers: [
      {
        name: '{person}',
        title: 'the [incoming|new] {position}',
        quotes: [
          'I am [honoured|delighted|proud] to [join|lead|serve] [this team|this organisation|a company with such history] at [such an important|an exciting|a pivotal] [time|moment]',
        ],
      },
      {
        title: 'the [chair|head of the board|senior director] of {organization}',
        quotes: [
          '[We|The board] [believe|are confident] {person} [is the right person|has the experience|is the right leader] to [take us forward|guide the next chapter|lead the company]',
        ],
      },
    ],
  },

  funding_round: {
    category: 'BUSINESS',
    noun: '[the round|the funding round|the investment|the raise]',
    topic: '[venture capital|start-up funding|investor appetite|growth funding|private investment]',
    sayer: '[the company|{company}|the investors|people familiar with the round]',
    report: '[a statement from {company}|people familiar with the round|a regulatory filing]',
    clauses: [
      '{company} raised {amount} in a round led by {investor}',
      '{company} [has raised|raised|secured] {amount} [in a funding round|in new funding|from investors] led by {investor}',
      '{investor} [led|headed|anchored] a {amount} [funding round|investment|round] in {company}',
      '[investors led by|a group led by] {investor} [put|invested|poured] {amount} into {company}',
    ],
    facts: [
      '{company}, which [employs|has] {employees} [people|staff|workers], [said it would|plans to] [use|spend] the [money|funds|new capital] on [hiring|expansion|product development|research].',
      '[The round|The investment] [values|valued|puts a value on] {company} at [several times|more than|roughly double] [its last|the previous] [valuation|round].',
      '[Existing|Earlier|Previous] [investors|backers] [also took part|joined|participated] [in the round|alongside {investor}].',
      '{company} was [founded|started|launched] [five|seven|three|ten] years ago and [now|today] [employs|counts] {employees} [people|staff].',
      '[The round|The investment] [brings|takes] [the total|total funding] {company} has raised [since its founding|so far|to date] [to well over|past|above] {amount}.',
      '{investor} [has|had] [backed|invested in|funded] [several|a number of|other] [companies|start-ups|firms] in [the same field|the sector|related markets] [before|in recent years].',
      '{company} [plans|intends|aims] to [double|grow|expand] its [staff|team|workforce] [over|within|during] the [next|coming] [year|two years|eighteen months].',
      '[The deal|The round|The investment] [includes|gives|comes with] [a board seat|a seat on the board|board representation] for {investor}[| according to the terms| the company said].',
      '{company} [declined|did not want|would not] to [give|share|disclose] [its revenue|its valuation|sales figures|how much it earns].',
    ],
    reactions: [
      '[The round|The raise] [is among|ranks among|is one of] the [largest|biggest] [in the sector|of its kind|this year].',
      '[Rivals|Competitors] [have|had] [struggled|found it harder] to [raise money|attract investors|find backers] [this year|lately|in recent months].',
      '[Analysts|Industry watchers|Venture investors] [said|noted] the [size|scale|terms] of the [round|deal] [showed|signalled|suggested] [renewed|growing|strong] [confidence|appetite] [in the sector|for the business].',
      '[Some|Several] [investors|analysts|observers] [cautioned|warned|noted] that [valuations|prices|expectations] in [the sector|the market] [remained|were still|had become] [high|stretched|demanding].',
      '[Customers|Early users|Clients] of {company} [include|count|range from] [several|a number of|some] [large|well-known|big] [firms|brands|organisations] [in|across] [the sector|its market|several countries].',
    ],
    headlines: ['{company} raises {amount} [in round led by|from] {investor}', '{investor} [leads|backs] {amount} round in {company}'],
    speakers: [
      {
        title: 'the [chief executive|co-founder|chief financial officer] of {company}',
        quotes: [
          '[This|The] [funding|investment|money] [lets us|will let us|allows us to] [grow|hire|build] [faster|more quickly|with confidence] and [reach|serve] [more customers|new markets|customers in new markets]',
        ],
      },
      {
        title: '[a partner at|a managing director at] {investor}',
        quotes: [
          '{company} has [built|created|developed] [something|a product|a business] [customers love|that customers rely on|with real demand], and we [want|intend] to [help it grow|back that growth|be part of what comes next]',
        ],
      },
    ],
  },

  strike: {
    category: 'PUBLIC',
    place: 'city',
    noun: '[the strike|the walkout|the stoppage|the industrial action]',
    topic: '[pay talks|labour relations|the cost of living|working conditions|wage disputes]',
    sayer: '[the union|union officials|{employer}|organisers]',
    report: '[the union|a statement from {employer}|local media|organisers]',
    clauses: [
      'workers at {employer} in {city} went on strike for {duration}',
      '[staff|workers|employees] at [the site of {employer}|{employer}] in {city} [walked out|began a strike|stopped work] for {duration}',
      'a strike [lasting|of] {duration} [hit|halted|disrupted] [work|operations] at {employer} in {city}',
      '{employer} [faced|was hit by] a [strike|walkout|stoppage] of {duration} [by|among] [workers|staff] in {city}',
    ],
    facts: [
      '[The union|Union leaders|Organisers] [said|claimed] [most|the majority of|nearly all] [members|workers|staff] [joined|took part in|supported] the [strike|walkout].',
      '[Talks|Negotiations] [over pay|on wages|over working hours] [broke down|stalled|collapsed] [last week|earlier in the month|after several rounds].',
      '{employer} [said|insisted] its [offer|pay offer|latest proposal] [was|remained] [fair|generous|the best it could afford].',
      '[Picket lines|Pickets] [formed|gathered|stood] [outside|at] the [gates|main entrance|offices] [from early morning|before dawn|as shifts began|at first light].',
      'The [union|workers] [is|are] [demanding|seeking|asking for] a [pay rise|wage increase|raise] [of|above|close to] [8|10|12|15] percent [to keep up with prices|over two years|this year].',
      '[Managers|Supervisors|Some staff] [kept|tried to keep] [some|limited|essential] [operations|services|work] [running|going] [during|throughout] the [strike|walkout].',
      '[Union|Strike] [leaders|organisers|officials] [warned|said|threatened] [further|longer|new] [strikes|walkouts|stoppages] [could|would|might] [follow|come] [if|unless] [talks|negotiations] [fail|stall|break down again].',
      '[About|Roughly|Nearly] [a third|half|two thirds] of [staff|workers|employees] [at|in] [the site|the plant|{employer}] [belong to|are members of] the union.',
      '{employer} [said|claimed|insisted] [most|much|part] of its [work|operations|service] [continued|carried on|went ahead] [as normal|despite the strike|with reduced staff].',
    ],
    reactions: [
      '[Customers|Residents|Commuters] in {city} [faced|reported|experienced] [delays|disruption|cancellations] [during|because of] the [strike|stoppage].',
      '[Both sides|The two sides] [said|signalled] they [were|remained] [open to|ready for|willing to hold] [further|new|more] talks.',
      '[Other unions|Workers at other sites|Staff elsewhere] [said|warned] they [could|might|would] [join|follow with] [action|strikes|walkouts] [of their own|later in the month|if talks fail].',
      '[Local politicians|Council members|City officials] in {city} [called on|urged|asked|pressed] [both sides|the two sides|the union and {employer}] to [return to talks|find a compromise|settle the dispute] [quickly|soon|without delay].',
      '[Passers-by|Residents|Drivers] [honked|waved|stopped] [in support|to show support|to chat] [as|while] [pickets|strikers|workers] [stood|gathered|marched] [outside|near] the [site|gates|offices].',
    ],
    headlines: ['Workers at {employer} in {city} [strike|walk out] for {duration}', '[Strike|Walkout] hits {employer} in {city}'],
    speakers: [
      {
        title: '[a union representative in|the regional union secretary for] {city}',
        quotes: [
          '[Our members|Workers|People] have [had enough|been patient for too long|run out of patience] and [want|deserve|are asking for] [a fair deal|fair pay|pay that keeps up with prices]',
          'We did not [want|choose] to [strike|walk out|take this step], but [we were left with|there was] [no other choice|no alternative|nothing else left]',
        ],
      },
    ],
  },

  election_result: {
    category: 'PUBLIC',
    place: 'country',
    noun: '[the election|the vote|the result|the victory]',
    topic: '[national politics|voter turnout|the new government|the campaign|electoral reform]',
    sayer: '[the electoral commission|election officials|observers|officials]',
    report: '[official results|the electoral commission|preliminary figures]',
    clauses: [
      '{winner} won the election in {country}',
      "{winner} [won|secured|claimed] [victory|the presidency|a clear win] in {country}'s [national|general] election",
      '[voters in|the electorate of] {country} [elected|chose|backed] {winner} [in|at] [the|a] [national|general] election',
      '{winner} [was declared|emerged as] the winner of the [election|national vote] in {country}',
    ],
    facts: [
      'Turnout [was|stood at|reached] {turnout}[, according to the electoral commission|, officials said|].',
      '{winner} [campaigned|ran] on [promises|a platform] of [lower taxes|economic reform|fighting corruption|better public services].',
      '[Opposition|Rival] [candidates|parties] [conceded|accepted the result|called to offer congratulations] [late in the evening|overnight|by the next morning].',
      '[International observers|Monitors|Election observers] [described|called] the vote [largely orderly|free and fair|calm].',
      '{winner} [is expected to|will] [take office|be sworn in|form a government] [within weeks|next month|in the coming weeks].',
      '[Counting|The count|Vote counting] [continued|went on|stretched] [late into the night|through the night|into the next morning] in [some|several|remote] [districts|regions|areas].',
      '[Results|Counts|Tallies] from [rural|urban|outlying] [areas|districts|regions] [favoured|backed|leaned toward] {winner} [by|with] [a wide|a narrow|a clear] margin.',
      '[Young|First-time|Older] voters [turned out|voted|came out] [in large numbers|in force|more than expected], [according to|said] [exit polls|early surveys|pollsters].',
      '{winner} [thanked|addressed|spoke to] [supporters|crowds|voters] [late at night|at a rally|in the capital] [after|once] [the result|the outcome|victory] [became clear|was known|was announced].',
    ],
    reactions: [
      '[Supporters|Crowds] [celebrated|gathered|rallied] in the [capital|streets|main square] [late into the night|as results came in|after the announcement].',
      '[Markets|Investors] [reacted|responded] [calmly|cautiously|with little movement] to the [result|outcome].',
      '[Foreign leaders|Neighbouring governments|Several heads of state] [sent|offered] [congratulations|messages of support] [within hours|overnight|the next day].',
      '[Opposition leaders|Defeated candidates|Rivals of {winner}] [said|promised|vowed] they [would|planned to] [hold the new government to account|challenge some results|work with the new government].',
      '[Newspapers|Commentators|Broadcasters] in {country} [called|described|hailed] the [result|outcome|win] [a landslide|a surprise|historic|decisive].',
    ],
    headlines: ['{winner} wins election in {country}', '{country} elects {winner}'],
    speakers: [
      {
        name: '{winner}',
        title: '[the winner|the president-elect]',
        quotes: [
          '[Tonight|Today] [the people|voters] have [chosen|spoken|made their choice], and I [will|intend to] [serve|govern for] [every citizen|all of them|the whole country]',
        ],
      },
      {
        title: "the head of {country}'s electoral commission",
        quotes: [
          'The [count|vote|process] [was|has been] [transparent|orderly|conducted fairly], and the [result|outcome] [reflects|shows] the [will of the voters|choice of the people]',
        ],
      },
    ],
  },
};
