package lexical

import "strings"

// Dimensions of the units Quantities converts. Two quantities of one
// dimension are compared in its base unit; quantities of two dimensions
// are never the same quantity ("six months" is not "six weeks", "120 km"
// is not "120 miles", "30 °C" is not "30 kg").
const (
	DimLength      = "length"      // metres
	DimMass        = "mass"        // grams
	DimTime        = "time"        // seconds
	DimTemperature = "temperature" // degrees Celsius
	DimPower       = "power"       // watts
	DimEnergy      = "energy"      // watt-hours
	DimData        = "data"        // bytes
	DimFrequency   = "frequency"   // hertz
	DimPoints      = "points"      // percentage points ("75 basis points" = 0.75)
	DimFactor      = "factor"      // a ratio of a new to an old level: "tripled", "3x", "threefold"
	DimDate        = "date"        // days since 1 January 1970 (proleptic Gregorian)
)

// unitDef converts a unit to its dimension's base: base = value×factor +
// offset.
type unitDef struct {
	dim            string
	factor, offset float64
}

// caseUnits are unit spellings read only as written: "MW" is megawatts,
// "mW" would not be; "K" spaced after a number is kelvin, "300K" a count.
var caseUnits = map[string]unitDef{
	"K": {DimTemperature, 1, -273.15}, "W": {DimPower, 1, 0}, "kW": {DimPower, 1e3, 0},
	"MW": {DimPower, 1e6, 0}, "GW": {DimPower, 1e9, 0}, "TW": {DimPower, 1e12, 0},
	"Wh": {DimEnergy, 1, 0}, "kWh": {DimEnergy, 1e3, 0}, "MWh": {DimEnergy, 1e6, 0},
	"GWh": {DimEnergy, 1e9, 0}, "TWh": {DimEnergy, 1e12, 0},
	"KB": {DimData, 1e3, 0}, "kB": {DimData, 1e3, 0}, "MB": {DimData, 1e6, 0}, "GB": {DimData, 1e9, 0},
	"TB": {DimData, 1e12, 0}, "PB": {DimData, 1e15, 0},
	"Hz": {DimFrequency, 1, 0}, "kHz": {DimFrequency, 1e3, 0}, "MHz": {DimFrequency, 1e6, 0}, "GHz": {DimFrequency, 1e9, 0},
	"Mt": {DimMass, 1e12, 0}, "Gt": {DimMass, 1e15, 0}, "kt": {DimMass, 1e9, 0},
	"m": {DimLength, 1, 0}, "g": {DimMass, 1, 0}, "s": {DimTime, 1, 0}, "h": {DimTime, 3600, 0},
}

// units are unit words and symbols read in any case.
var units = map[string]unitDef{
	"km": {DimLength, 1e3, 0}, "kilometre": {DimLength, 1e3, 0}, "kilometres": {DimLength, 1e3, 0},
	"kilometer": {DimLength, 1e3, 0}, "kilometers": {DimLength, 1e3, 0},
	"metre": {DimLength, 1, 0}, "metres": {DimLength, 1, 0}, "meter": {DimLength, 1, 0}, "meters": {DimLength, 1, 0},
	"cm": {DimLength, 0.01, 0}, "centimetre": {DimLength, 0.01, 0}, "centimetres": {DimLength, 0.01, 0},
	"centimeter": {DimLength, 0.01, 0}, "centimeters": {DimLength, 0.01, 0},
	"mm": {DimLength, 1e-3, 0}, "millimetre": {DimLength, 1e-3, 0}, "millimetres": {DimLength, 1e-3, 0},
	"millimeter": {DimLength, 1e-3, 0}, "millimeters": {DimLength, 1e-3, 0},
	"µm": {DimLength, 1e-6, 0}, "μm": {DimLength, 1e-6, 0}, "micrometre": {DimLength, 1e-6, 0}, "micrometres": {DimLength, 1e-6, 0},
	"nanometre": {DimLength, 1e-9, 0}, "nanometres": {DimLength, 1e-9, 0}, "nm": {DimLength, 1e-9, 0},
	"mile": {DimLength, 1609.344, 0}, "miles": {DimLength, 1609.344, 0},
	"ft": {DimLength, 0.3048, 0}, "foot": {DimLength, 0.3048, 0}, "feet": {DimLength, 0.3048, 0},
	"inch": {DimLength, 0.0254, 0}, "inches": {DimLength, 0.0254, 0}, "yard": {DimLength, 0.9144, 0}, "yards": {DimLength, 0.9144, 0},
	"kg": {DimMass, 1e3, 0}, "kilogram": {DimMass, 1e3, 0}, "kilograms": {DimMass, 1e3, 0}, "kilo": {DimMass, 1e3, 0}, "kilos": {DimMass, 1e3, 0},
	"gram": {DimMass, 1, 0}, "grams": {DimMass, 1, 0}, "gramme": {DimMass, 1, 0}, "grammes": {DimMass, 1, 0},
	"mg": {DimMass, 1e-3, 0}, "milligram": {DimMass, 1e-3, 0}, "milligrams": {DimMass, 1e-3, 0},
	"µg": {DimMass, 1e-6, 0}, "μg": {DimMass, 1e-6, 0}, "mcg": {DimMass, 1e-6, 0}, "microgram": {DimMass, 1e-6, 0}, "micrograms": {DimMass, 1e-6, 0},
	"ng": {DimMass, 1e-9, 0}, "nanogram": {DimMass, 1e-9, 0}, "nanograms": {DimMass, 1e-9, 0},
	"tonne": {DimMass, 1e6, 0}, "tonnes": {DimMass, 1e6, 0}, "ton": {DimMass, 1e6, 0}, "tons": {DimMass, 1e6, 0},
	"megatonne": {DimMass, 1e12, 0}, "megatonnes": {DimMass, 1e12, 0}, "megaton": {DimMass, 1e12, 0}, "megatons": {DimMass, 1e12, 0},
	"gigatonne": {DimMass, 1e15, 0}, "gigatonnes": {DimMass, 1e15, 0}, "gigaton": {DimMass, 1e15, 0}, "gigatons": {DimMass, 1e15, 0},
	"lb": {DimMass, 453.59237, 0}, "lbs": {DimMass, 453.59237, 0}, "oz": {DimMass, 28.349523125, 0}, "ounce": {DimMass, 28.349523125, 0}, "ounces": {DimMass, 28.349523125, 0},
	"ns": {DimTime, 1e-9, 0}, "nanosecond": {DimTime, 1e-9, 0}, "nanoseconds": {DimTime, 1e-9, 0},
	"µs": {DimTime, 1e-6, 0}, "μs": {DimTime, 1e-6, 0}, "microsecond": {DimTime, 1e-6, 0}, "microseconds": {DimTime, 1e-6, 0},
	"ms": {DimTime, 1e-3, 0}, "millisecond": {DimTime, 1e-3, 0}, "milliseconds": {DimTime, 1e-3, 0},
	"sec": {DimTime, 1, 0}, "secs": {DimTime, 1, 0}, "second": {DimTime, 1, 0}, "seconds": {DimTime, 1, 0},
	"min": {DimTime, 60, 0}, "mins": {DimTime, 60, 0}, "minute": {DimTime, 60, 0}, "minutes": {DimTime, 60, 0},
	"hr": {DimTime, 3600, 0}, "hrs": {DimTime, 3600, 0}, "hour": {DimTime, 3600, 0}, "hours": {DimTime, 3600, 0},
	"day": {DimTime, 86400, 0}, "days": {DimTime, 86400, 0}, "week": {DimTime, 7 * 86400, 0}, "weeks": {DimTime, 7 * 86400, 0},
	"month": {DimTime, 30.436875 * 86400, 0}, "months": {DimTime, 30.436875 * 86400, 0},
	"year": {DimTime, 365.2425 * 86400, 0}, "years": {DimTime, 365.2425 * 86400, 0}, "yr": {DimTime, 365.2425 * 86400, 0}, "yrs": {DimTime, 365.2425 * 86400, 0},
	"decade": {DimTime, 3652.425 * 86400, 0}, "decades": {DimTime, 3652.425 * 86400, 0},
	"century": {DimTime, 36524.25 * 86400, 0}, "centuries": {DimTime, 36524.25 * 86400, 0},
	"°c": {DimTemperature, 1, 0}, "℃": {DimTemperature, 1, 0}, "°f": {DimTemperature, 5.0 / 9, -32 * 5.0 / 9}, "℉": {DimTemperature, 5.0 / 9, -32 * 5.0 / 9},
	"kelvin": {DimTemperature, 1, -273.15},
	"watt":   {DimPower, 1, 0}, "watts": {DimPower, 1, 0}, "kilowatt": {DimPower, 1e3, 0}, "kilowatts": {DimPower, 1e3, 0},
	"megawatt": {DimPower, 1e6, 0}, "megawatts": {DimPower, 1e6, 0}, "gigawatt": {DimPower, 1e9, 0}, "gigawatts": {DimPower, 1e9, 0},
	"kilobyte": {DimData, 1e3, 0}, "kilobytes": {DimData, 1e3, 0}, "megabyte": {DimData, 1e6, 0}, "megabytes": {DimData, 1e6, 0},
	"gigabyte": {DimData, 1e9, 0}, "gigabytes": {DimData, 1e9, 0}, "terabyte": {DimData, 1e12, 0}, "terabytes": {DimData, 1e12, 0},
	"kb": {DimData, 1e3, 0}, "mb": {DimData, 1e6, 0}, "gb": {DimData, 1e9, 0}, "tb": {DimData, 1e12, 0},
	"hertz": {DimFrequency, 1, 0},
	"pp":    {DimPoints, 1, 0}, "bp": {DimPoints, 0.01, 0}, "bps": {DimPoints, 0.01, 0},
}

// twoWordUnits are units of two words, keyed by both lowercased.
var twoWordUnits = map[[2]string]unitDef{
	{"degrees", "celsius"}: {DimTemperature, 1, 0}, {"degrees", "c"}: {DimTemperature, 1, 0},
	{"degrees", "fahrenheit"}: {DimTemperature, 5.0 / 9, -32 * 5.0 / 9}, {"degrees", "f"}: {DimTemperature, 5.0 / 9, -32 * 5.0 / 9},
	{"percentage", "points"}: {DimPoints, 1, 0}, {"percentage", "point"}: {DimPoints, 1, 0},
	{"basis", "points"}: {DimPoints, 0.01, 0}, {"basis", "point"}: {DimPoints, 0.01, 0},
	{"times", "per"}: {DimFrequency, 1, 0}, // "400 times per second": read with the "second" after it
}

// unitOf returns the definition of a unit spelling, as written or
// lowercased.
func unitOf(surface string) (unitDef, bool) {
	if u, ok := caseUnits[surface]; ok {
		return u, true
	}
	u, ok := units[strings.ToLower(surface)]
	return u, ok
}

// currencyWords name currencies after a number ("3.4 billion dollars"),
// read as the symbol written before one.
var currencyWords = map[string]string{
	"dollar": "$", "dollars": "$", "usd": "$", "euro": "€", "euros": "€", "eur": "€",
	"gbp": "£", "sterling": "£", "yen": "¥", "jpy": "¥", "yuan": "CN¥", "cny": "CN¥", "rmb": "CN¥",
}
