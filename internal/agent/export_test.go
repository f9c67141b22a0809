package agent

// WriteRecord exposes writeRecord to the external tests.
var WriteRecord = writeRecord
