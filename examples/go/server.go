package main

import (
	"encoding/json"
	"errors"
	"net/http"

	"kiln.dev/kiln"
)

type predictRequest struct {
	Pixels []float32 `json:"pixels"`
}

type predictResponse struct {
	Class         int       `json:"class"`
	Probabilities []float64 `json:"probabilities"`
}

type errorResponse struct {
	Error string `json:"error"`
}

// newServer serves POST /predict; each request borrows a session from the
// pool, so requests run in parallel up to the pool's size.
func newServer(pool *kiln.SessionPool) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/predict", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			reply(w, http.StatusMethodNotAllowed, errorResponse{"use POST"})
			return
		}
		var req predictRequest
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&req); err != nil {
			reply(w, http.StatusBadRequest, errorResponse{"body must be JSON {\"pixels\": [64 numbers]}: " + err.Error()})
			return
		}
		if len(req.Pixels) != 64 {
			reply(w, http.StatusBadRequest, errorResponse{"pixels must hold 64 values (8x8, row-major, 0..1)"})
			return
		}
		var resp predictResponse
		err := pool.Do(r.Context(), func(s *kiln.Session) error {
			var err error
			resp.Class, resp.Probabilities, err = predict(s, req.Pixels)
			return err
		})
		if err != nil {
			status := http.StatusInternalServerError
			var kerr *kiln.Error
			if errors.As(err, &kerr) && (kerr.Code == kiln.ErrShape.Code || kerr.Code == kiln.ErrInvalidArgument.Code) {
				status = http.StatusBadRequest
			}
			reply(w, status, errorResponse{err.Error()})
			return
		}
		reply(w, http.StatusOK, resp)
	})
	return mux
}

func reply(w http.ResponseWriter, status int, body interface{}) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}
